import type { HarnessRunStatus, HarnessStatusStore } from "@tinyagents/harness";
import { abandonedStatus, isStale, type ReapOptions, reapCutoff } from "@tinyagents/harness/durability";
import {
  DEFAULT_MAX_FINISHED_RUNS,
  databaseEvictBatch,
  FinishedRunRetention,
  type StatusQuery,
  statusFilter,
  validateStatus,
} from "@tinyagents/harness/observability";
import { validationError } from "@tinyagents/inference";
import type pg from "pg";
import { type PgTarget, pgDatabase, pgGuard } from "./postgres-errors.js";
import type { PostgresGroupCommit } from "./postgres-group-commit.js";
import type { PostgresTables } from "./postgres-schema.js";
import { byRunId, type StatusRow, statusRow, statusUpsertTail } from "./postgres-status-row.js";

/**
 * A HarnessStatusStore in the `run_status` table of a tinyagents Postgres schema, indexed by root
 * run, thread and liveness; every worker, the CLI and a UI see the same runs. A save is ONE
 * conditional upsert, so its rule holds across processes without locks held in between: a
 * record of a higher fencing `epoch` replaces the stored one, one of a lower epoch never does,
 * and otherwise a record replaces it only if it is not older (`updatedAt`) and does not turn a
 * finished run back into an active one. Saves share the group commit of the event-loop turn.
 * Only finished runs are evicted, oldest first, beyond `maxFinishedRuns`, in batches of
 * {@link databaseEvictBatch} rows through the `run_status_finished` index, so the newest
 * `maxFinishedRuns` are always kept and at most a batch less one more (each process re-counts
 * every `max(256, maxFinishedRuns)` runs it finishes, so the table may briefly hold that many more).
 * `reapStale` locks the stale active rows (`FOR UPDATE`) and marks them failed / `abandoned` in
 * one transaction: a heartbeat committed first makes the row fresh (skipped); one committed after
 * loses to the finished record. Create it through `PostgresStore.open(...).statusStore`.
 */
export class PostgresHarnessStatusStore implements HarnessStatusStore {
  readonly maxFinishedRuns: number;
  private readonly pool: pg.Pool;
  /** Runs a statement, turning driver errors into `storage` errors naming this table. */
  /** The table and database its statements go to (named in its errors). */
  private readonly target: PgTarget;
  private readonly guard: <T>(action: string, work: () => Promise<T>) => Promise<T>;
  private readonly tables: PostgresTables;
  private readonly commit: PostgresGroupCommit;
  private readonly sql: Record<"get" | "upsert" | "del" | "finished" | "evict" | "stale", string>;
  /** Finished rows as far as this process knows, and when to recount them. */
  private readonly retention: FinishedRunRetention;

  /** @internal Use `PostgresStore.open`. */
  constructor(
    pool: pg.Pool,
    tables: PostgresTables,
    commit: PostgresGroupCommit,
    maxFinishedRuns = DEFAULT_MAX_FINISHED_RUNS,
  ) {
    if (!Number.isInteger(maxFinishedRuns) || maxFinishedRuns < 0) {
      throw validationError(
        `maxFinishedRuns must be a non-negative integer, got ${String(maxFinishedRuns)}`,
        {
          field: "maxFinishedRuns",
        },
      );
    }
    this.pool = pool;
    this.target = { table: tables.runStatus, database: pgDatabase(pool) };
    this.guard = pgGuard(this.target);
    this.tables = tables;
    this.commit = commit;
    this.maxFinishedRuns = maxFinishedRuns;
    this.retention = new FinishedRunRetention(maxFinishedRuns, {
      evictBatch: databaseEvictBatch(maxFinishedRuns),
    });
    const t = tables.runStatus;
    this.sql = {
      get: `SELECT record FROM ${t} WHERE run_id = $1`,
      // prev: the row before this statement (only to notice "newly finished" for eviction).
      upsert:
        `WITH prev AS (SELECT active FROM ${t} WHERE run_id = $1) ` +
        `INSERT INTO ${t} AS cur (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, lease_until, record) ` +
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) " +
        statusUpsertTail() +
        "RETURNING (SELECT active FROM prev) AS was_active",
      del: `DELETE FROM ${t} WHERE run_id = $1`,
      finished: `SELECT count(*) AS n FROM ${t} WHERE active = false`,
      evict:
        `DELETE FROM ${t} WHERE run_id IN (SELECT run_id FROM ${t} WHERE active = false ` +
        "ORDER BY ended_at NULLS FIRST, run_id LIMIT $1)", // the run_status_finished index's order
      stale: `SELECT record FROM ${t} WHERE active = true AND lease_until < $1 ORDER BY run_id FOR UPDATE`,
    };
  }

  /**
   * `save` and `saveMany` serialize the records before they return (the write commits with the
   * turn's group commit), so the status writer hands over its live records instead of copies.
   */
  readonly snapshotsOnSave = true;

  async save(status: HarnessRunStatus): Promise<void> {
    validateStatus(status);
    const row = statusRow(status);
    await this.commit.submit(
      `save the status of run "${status.runId}"`,
      this.target,
      (client) => this.saveOne(client, row),
      { kind: "status", rows: [row] },
    );
  }

  /** Group commit: every status in one transaction (all or nothing). */
  async saveMany(statuses: readonly HarnessRunStatus[]): Promise<void> {
    for (const status of statuses) validateStatus(status);
    if (statuses.length === 0) return;
    // Run id order: two processes saving overlapping runs lock them in the same order.
    const rows = statuses.map((status) => statusRow(status)).sort(byRunId);
    await this.commit.submit(
      `save ${statuses.length} run statuses`,
      this.target,
      async (client) => {
        for (const row of rows) await this.saveOne(client, row);
      },
      { kind: "status", rows },
    );
  }

  /** Mark stale runs (lease ended over `olderThanMs` ago) `failed` / `abandoned`; returns them. */
  async reapStale(options: ReapOptions): Promise<HarnessRunStatus[]> {
    const cutoff = reapCutoff(options);
    const now = options.now ?? Date.now();
    return this.commit.submit("reap stale runs", this.target, async (client) => {
      const { rows } = await client.query<{ record: string }>(this.sql.stale, [cutoff]);
      const changed: HarnessRunStatus[] = [];
      for (const row of rows) {
        const record = JSON.parse(row.record) as HarnessRunStatus;
        if (!isStale(record, cutoff)) continue;
        const reaped = abandonedStatus(record, now);
        await this.saveOne(client, statusRow(reaped));
        changed.push(reaped);
      }
      return changed;
    });
  }

  async get(runId: string): Promise<HarnessRunStatus | undefined> {
    const { rows } = await this.guard("read a run status", () =>
      this.pool.query<{ record: string }>(this.sql.get, [runId]),
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].record) as HarnessRunStatus);
  }

  async list(query: StatusQuery = {}): Promise<HarnessRunStatus[]> {
    statusFilter(query); // validates
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (column: string, value: unknown) => {
      params.push(value);
      where.push(`${column} = $${params.length}`);
    };
    if (query.threadId !== undefined) add("thread_id", query.threadId);
    if (query.rootRunId !== undefined) add("root_run_id", query.rootRunId);
    if (query.active !== undefined) add("active", query.active);
    if (query.rootsOnly === true) where.push("root_run_id = run_id");
    const newest = query.order === "newest";
    if (query.after !== undefined) {
      params.push(query.after.startedAt, query.after.runId);
      where.push(
        `(started_at, run_id COLLATE "C") ${newest ? "<" : ">"} ($${params.length - 1}, $${params.length} COLLATE "C")`,
      );
    }
    const direction = newest ? " DESC" : "";
    let sql = `SELECT record FROM ${this.tables.runStatus}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY started_at${direction}, run_id COLLATE "C"${direction}`;
    if (query.limit !== undefined) {
      params.push(query.limit);
      sql += ` LIMIT $${params.length}`;
    }
    const { rows } = await this.guard("list run statuses", () =>
      this.pool.query<{ record: string }>(sql, params),
    );
    return rows.map((r) => JSON.parse(r.record) as HarnessRunStatus);
  }

  async delete(runId: string): Promise<boolean> {
    const result = await this.guard("delete a run status", () => this.pool.query(this.sql.del, [runId]));
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * @internal One save on `client`, inside the caller's transaction and outside the group commit
   * (`PostgresStore.checkpoints` writes a new run's record with it).
   */
  async saveIn(client: pg.PoolClient, status: HarnessRunStatus): Promise<void> {
    validateStatus(status);
    await this.saveOne(client, statusRow(status));
  }

  /**
   * @internal `count` runs newly finished in a commit that is already done (the one-statement
   * path): count and evict as the bound needs, on any pooled connection.
   */
  async afterFinished(count: number): Promise<void> {
    let excess = 0;
    for (let i = 0; i < count; i++) {
      const next = this.retention.finished();
      if (next !== "recount") excess += next;
      else {
        // The committed rows include all of this commit's: the count replaces what was summed.
        const counted = await this.pool.query<{ n: string }>(this.sql.finished);
        excess = this.retention.counted(Number(counted.rows[0]?.n ?? 0));
        break;
      }
    }
    if (excess > 0) await this.pool.query(this.sql.evict, [excess]);
  }

  private async saveOne(client: pg.PoolClient, row: StatusRow): Promise<void> {
    const { rows } = await client.query<{ was_active: boolean | null }>(
      this.sql.upsert,
      row as unknown as unknown[],
    );
    const written = rows[0];
    if (written === undefined || row[4] || written.was_active === false) return;
    await this.retain(client);
  }

  /**
   * A run newly finished: evict the excess over the bound, counting rows only rarely (see
   * FinishedRunRetention).
   */
  private async retain(client: pg.PoolClient): Promise<void> {
    const next = this.retention.finished();
    let excess = next;
    if (next === "recount") {
      const counted = await client.query<{ n: string }>(this.sql.finished);
      excess = this.retention.counted(Number(counted.rows[0]?.n ?? 0));
    }
    if ((excess as number) > 0) await client.query(this.sql.evict, [excess]);
  }
}
