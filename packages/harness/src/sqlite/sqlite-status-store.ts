import { validationError } from "@tinyagents/inference";
import { abandonedStatus, isStale, type ReapOptions, reapCutoff } from "../durability/reap-stale.js";
import { databaseEvictBatch, FinishedRunRetention } from "../observability/finished-run-retention.js";
import { DEFAULT_MAX_FINISHED_RUNS } from "../observability/in-memory-status-store.js";
import {
  type HarnessStatusStore,
  isActiveStatus,
  type StatusQuery,
  shouldReplaceStatus,
  statusFilter,
  validateStatus,
} from "../observability/status-store.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { damagedRecord, parseStoredRecord } from "../store/damaged-record.js";
import { defaultStoreWarning, type StoreWarning } from "../store/store-warning.js";
import { guard, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";
import type { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteOwnWrites } from "./sqlite-own-writes.js";

/** The stored columns a save compares with. */
interface CurrentRow {
  status: HarnessRunStatus["status"];
  updatedAt: number;
  rootRunId: string;
  threadId: string | null;
  startedAt: number;
  endedAt: number | null;
  epoch: number | null;
}

/** What a save writes, read from the record when `save` / `saveMany` is called. */
interface StatusRow {
  runId: string;
  rootRunId: string;
  threadId: string | null;
  status: HarnessRunStatus["status"];
  startedAt: number;
  updatedAt: number;
  endedAt: number | null;
  epoch: number | undefined;
  /** The whole record, serialized. */
  record: string;
}

function statusRow(status: HarnessRunStatus): StatusRow {
  return {
    runId: status.runId,
    rootRunId: status.rootRunId,
    threadId: status.threadId ?? null,
    status: status.status,
    startedAt: status.startedAt,
    updatedAt: status.updatedAt,
    endedAt: status.endedAt ?? null,
    epoch: status.epoch,
    record: JSON.stringify(status),
  };
}

/** The stored columns `row` writes, as the `current` statement reads them back. */
function currentRow(row: StatusRow): CurrentRow {
  return {
    status: row.status,
    updatedAt: row.updatedAt,
    rootRunId: row.rootRunId,
    threadId: row.threadId,
    startedAt: row.startedAt,
    endedAt: row.endedAt,
    epoch: Number.isFinite(row.epoch) ? (row.epoch as number) : null,
  };
}

/**
 * A HarnessStatusStore in the `run_status` table of a tinyagents SQLite file, indexed by root
 * run, thread and liveness; queries go to the database, so runs saved by other processes are
 * visible at once. Each save (or `saveMany` batch) is atomic (compare, write, evict), in an
 * IMMEDIATE transaction shared with the other writes of the same event-loop turn (group commit):
 * a stale or backwards save never wins, and only finished runs are evicted, oldest first, beyond
 * `maxFinishedRuns`, in batches of {@link databaseEvictBatch} rows (up to 64: one delete per batch
 * instead of one per finished run, whose six B-tree deletes each commit wrote), so the newest
 * `maxFinishedRuns` finished runs are always kept and at most a batch less one more — when one
 * process writes; with several, each re-counts the finished rows every
 * `max(256, maxFinishedRuns)` runs it finishes, so the table may briefly hold that many more.
 * Finishing a run is O(1) amortized (plus an index lookup) whatever the number of stored runs:
 * see {@link FinishedRunRetention}.
 * Create it through `SqliteStore.open(...).statusStore`.
 */
export class SqliteHarnessStatusStore implements HarnessStatusStore {
  readonly maxFinishedRuns: number;
  /** `save` / `saveMany` serialize the records before they return (the write commits later). */
  readonly snapshotsOnSave = true;
  private readonly stmt: Record<
    "get" | "current" | "upsert" | "update" | "updateRecord" | "del" | "finished" | "evict",
    SqliteStatement
  >;
  private readonly db: SqliteDb;
  private readonly saveTx: (row: StatusRow) => void;
  private readonly saveManyTx: (rows: readonly StatusRow[]) => void;
  private readonly reapTx: (cutoff: number, now: number) => HarnessRunStatus[];

  private readonly commit: SqliteGroupCommit | undefined;
  /** The rows of running runs as this connection last saved them (see `SqliteOwnWrites`). */
  private readonly written: SqliteOwnWrites<CurrentRow>;
  /** Finished rows as far as this connection knows, and when to recount them. */
  private readonly retention: FinishedRunRetention;

  private readonly file: string;
  private readonly warn: (warning: StoreWarning) => void;

  /** @internal Use `SqliteStore.open`. */
  constructor(
    db: SqliteDb,
    maxFinishedRuns = DEFAULT_MAX_FINISHED_RUNS,
    commit?: SqliteGroupCommit,
    damaged: { file?: string; onWarning?: (warning: StoreWarning) => void } = {},
  ) {
    this.commit = commit;
    this.file = damaged.file ?? db.filename;
    this.warn = damaged.onWarning ?? defaultStoreWarning;
    if (!Number.isInteger(maxFinishedRuns) || maxFinishedRuns < 0) {
      throw validationError(
        `maxFinishedRuns must be a non-negative integer, got ${String(maxFinishedRuns)}`,
        {
          field: "maxFinishedRuns",
        },
      );
    }
    this.db = db;
    this.written = new SqliteOwnWrites(db);
    this.maxFinishedRuns = maxFinishedRuns;
    this.retention = new FinishedRunRetention(maxFinishedRuns, {
      evictBatch: databaseEvictBatch(maxFinishedRuns),
    });
    // A group commit that rolled back undid the finished rows this count advanced by.
    commit?.onRollback(() => this.retention.forget());
    this.stmt = {
      get: db.prepare("SELECT record FROM run_status WHERE run_id = ?"),
      // What a save compares with, from the columns (no parse of the stored record).
      current: db.prepare(
        "SELECT status, updated_at AS updatedAt, root_run_id AS rootRunId, thread_id AS threadId, " +
          "started_at AS startedAt, ended_at AS endedAt, json_extract(record, '$.epoch') AS epoch " +
          "FROM run_status WHERE run_id = ?",
      ),
      upsert: db.prepare(
        "INSERT INTO run_status (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, record) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET root_run_id = excluded.root_run_id, " +
          "thread_id = excluded.thread_id, status = excluded.status, active = excluded.active, " +
          "started_at = excluded.started_at, updated_at = excluded.updated_at, ended_at = excluded.ended_at, record = excluded.record",
      ),
      // A later save of the same run: only the columns that change. An UPDATE maintains every
      // index on a column it sets, so setting the run's fixed columns too rewrote the root, thread
      // and run-id index entries (4 WAL pages per save instead of 2).
      update: db.prepare(
        "UPDATE run_status SET status = ?, active = ?, updated_at = ?, ended_at = ?, record = ? WHERE run_id = ?",
      ),
      // A save that leaves the run's liveness and end as they are (every step of a running run):
      // not setting `active` and `ended_at` leaves the (active, ended_at) index entry alone, one
      // WAL page less per step's commit.
      updateRecord: db.prepare(
        "UPDATE run_status SET status = ?, updated_at = ?, record = ? WHERE run_id = ?",
      ),
      del: db.prepare("DELETE FROM run_status WHERE run_id = ?"),
      finished: db.prepare("SELECT COUNT(*) AS n FROM run_status WHERE active = 0"),
      // The oldest finished rows, read in order from the (active, ended_at) index: a LIMIT 1
      // delete costs an index lookup, not a sort of every finished row.
      evict: db.prepare(
        "DELETE FROM run_status WHERE run_id IN (SELECT run_id FROM run_status WHERE active = 0 " +
          "ORDER BY ended_at, run_id LIMIT ?)",
      ),
    };
    const saveOne = (row: StatusRow): void => {
      // A running run's row as this connection last saved it (see `SqliteOwnWrites`): no read
      // back while no other connection committed.
      const current =
        this.written.get(row.runId) ?? (this.stmt.current.get(row.runId) as CurrentRow | undefined);
      if (!shouldReplaceStatus(current, row)) return;
      const active = isActiveStatus(row.status);
      const { threadId, endedAt } = row;
      // Remembered from a run's second save on (a 1-step run's only save makes no entry), and
      // forgotten when it finishes: the cache holds the rows of runs in flight.
      if (current !== undefined && active) this.written.set(row.runId, currentRow(row));
      else this.written.forget(row.runId);
      // An update that changes no row means a remembered row is gone (removed on this connection
      // without the store): it is written again below rather than lost.
      let updated = false;
      if (
        current !== undefined &&
        current.rootRunId === row.rootRunId &&
        current.threadId === threadId &&
        current.startedAt === row.startedAt
      ) {
        if (active === isActiveStatus(current.status) && endedAt === current.endedAt) {
          updated = this.stmt.updateRecord.run(row.status, row.updatedAt, row.record, row.runId).changes > 0;
          if (updated) return; // still as active as it was: nothing to evict
        } else {
          updated =
            this.stmt.update.run(row.status, active ? 1 : 0, row.updatedAt, endedAt, row.record, row.runId)
              .changes > 0;
        }
      }
      if (!updated) {
        this.stmt.upsert.run(
          row.runId,
          row.rootRunId,
          threadId,
          row.status,
          active ? 1 : 0,
          row.startedAt,
          row.updatedAt,
          endedAt,
          row.record,
        );
      }
      if (active || (current !== undefined && !isActiveStatus(current.status))) return;
      // A run newly finished: evict the excess over the bound, counting rows only rarely.
      const next = this.retention.finished();
      const excess =
        next === "recount" ? this.retention.counted((this.stmt.finished.get() as { n: number }).n) : next;
      if (excess > 0) this.stmt.evict.run(excess); // finished rows only: none is remembered
    };
    const tx = db.transaction(saveOne);
    this.saveTx = (row) => tx.immediate(row);
    const manyTx = db.transaction((rows: readonly StatusRow[]) => {
      for (const row of rows) saveOne(row);
    });
    this.saveManyTx = (rows) => manyTx.immediate(rows);
    // Read the active runs and mark the stale ones in one IMMEDIATE transaction: a run that
    // heartbeats in between is either seen fresh or its later save loses to the finished record.
    const active = db.prepare("SELECT run_id AS runId, record FROM run_status WHERE active = 1");
    const reapTx = db.transaction((cutoff: number, now: number) => {
      const changed: HarnessRunStatus[] = [];
      for (const row of active.all() as { runId: string; record: string }[]) {
        const record = this.parse(row.runId, row.record);
        if (record === undefined || !isStale(record, cutoff)) continue;
        const reaped = abandonedStatus(record, now);
        saveOne(statusRow(reaped));
        changed.push(reaped);
      }
      return changed;
    });
    this.reapTx = (cutoff, now) => reapTx.immediate(cutoff, now);
  }

  /** Mark stale runs (lease ended over `olderThanMs` ago) `failed` / `abandoned`; returns them. */
  async reapStale(options: ReapOptions): Promise<HarnessRunStatus[]> {
    const cutoff = reapCutoff(options);
    const now = options.now ?? Date.now();
    const reap = () => guard("reap stale runs", () => this.reapTx(cutoff, now), this.file);
    if (this.commit === undefined) return reap();
    let changed: HarnessRunStatus[] = [];
    await this.commit.submit(() => {
      changed = reap();
    });
    return changed;
  }

  async save(status: HarnessRunStatus): Promise<void> {
    validateStatus(status);
    const action = `save the status of run "${status.runId}"`;
    // Serialized now: the caller may change the record once this returns (`snapshotsOnSave`).
    const row = guard(action, () => statusRow(status), this.file);
    const write = () => guard(action, () => this.saveTx(row), this.file);
    if (this.commit === undefined) write();
    else await this.commit.submit(write);
  }

  /**
   * @internal One save, synchronously and outside the group commit: inside a caller's
   * transaction it is part of it (`SqliteStore.checkpoints` writes a new run's record with it).
   */
  saveNow(status: HarnessRunStatus): void {
    validateStatus(status);
    this.saveTx(statusRow(status));
  }

  /** Group commit: every status in one IMMEDIATE transaction (all or nothing). */
  saveMany(statuses: readonly HarnessRunStatus[]): Promise<void> {
    // Not an async function: the group commit's promise is the result (one promise less per
    // batch: the status writer of every journaled run saves through here).
    try {
      for (const status of statuses) validateStatus(status);
      if (statuses.length === 0) return Promise.resolve();
      const action = `save ${statuses.length} run statuses`;
      // Serialized now: the caller may change the records once this returns (`snapshotsOnSave`).
      const rows = guard(action, () => statuses.map(statusRow), this.file);
      const write = () => guard(action, () => this.saveManyTx(rows), this.file);
      if (this.commit !== undefined) return this.commit.submit(write);
      write();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async get(runId: string): Promise<HarnessRunStatus | undefined> {
    const row = guard("read a run status", () => this.stmt.get.get(runId), this.file) as
      | { record: string }
      | undefined;
    return row === undefined ? undefined : this.parse(runId, row.record);
  }

  /** A stored record, or undefined (with a `damaged_record` warning) when it cannot be read. */
  private parse(runId: string, record: string): HarnessRunStatus | undefined {
    const value = parseStoredRecord(record, { file: this.file, record: runId }, this.warn);
    if (value === undefined) return undefined;
    if (value === null || typeof value !== "object" || Array.isArray(value) || value.runId !== runId) {
      this.warn(damagedRecord({ file: this.file, record: runId }, "is not a run status record"));
      return undefined;
    }
    return value as unknown as HarnessRunStatus;
  }

  async list(query: StatusQuery = {}): Promise<HarnessRunStatus[]> {
    statusFilter(query); // validates
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.threadId !== undefined) {
      where.push("thread_id = ?");
      params.push(query.threadId);
    }
    if (query.rootRunId !== undefined) {
      where.push("root_run_id = ?");
      params.push(query.rootRunId);
    }
    if (query.active !== undefined) {
      where.push("active = ?");
      params.push(query.active ? 1 : 0);
    }
    if (query.rootsOnly === true) where.push("root_run_id = run_id");
    const newest = query.order === "newest";
    if (query.after !== undefined) {
      // A row-value comparison walks the (started_at, run_id) index from the cursor on.
      where.push(`(started_at, run_id) ${newest ? "<" : ">"} (?, ?)`);
      params.push(query.after.startedAt, query.after.runId);
    }
    const direction = newest ? " DESC" : "";
    const sql =
      `SELECT run_id AS runId, record FROM run_status${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ` +
      `ORDER BY started_at${direction}, run_id${direction}${query.limit === undefined ? "" : " LIMIT ?"}`;
    if (query.limit !== undefined) params.push(query.limit);
    const rows = guard("list run statuses", () => this.db.prepare(sql).all(...params), this.file) as {
      runId: string;
      record: string;
    }[];
    // One damaged row is skipped with a warning; it must not fail the whole listing.
    return rows.flatMap((r) => this.parse(r.runId, r.record) ?? []);
  }

  async delete(runId: string): Promise<boolean> {
    this.written.forget(runId);
    return guard("delete a run status", () => this.stmt.del.run(runId).changes > 0, this.file);
  }
}
