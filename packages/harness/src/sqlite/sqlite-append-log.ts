import type { JsonValue } from "@tinyagents/inference";
import {
  type AppendGroup,
  type AppendLog,
  type AppendLogEntry,
  serializeEntry,
  validateRead,
} from "../store/append-log.js";
import { parseStoredRecord } from "../store/damaged-record.js";
import { defaultStoreWarning, type StoreWarning } from "../store/store-warning.js";
import { guard, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";
import type { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteOwnWrites } from "./sqlite-own-writes.js";

/**
 * Rows per INSERT statement: a group's rows go in multi-row INSERTs (one statement for a
 * 1-step run's records instead of one each: the per-statement cost, not the B-tree work, was
 * most of an append's CPU). 16 rows are 48 bound parameters, far below every SQLite's limit.
 */
const ROWS_PER_INSERT = 16;

/** A stream's last row: its offset in the log, and its value's numeric `offset` field. */
interface StreamTail {
  readonly offset: number;
  /** The stored value's `offset` field when it is a finite number (what `checkOffset` reads). */
  readonly last: number | undefined;
}

/** The tail of a stream whose last row, at `offset`, holds `value`. */
function streamTail(offset: number, value: JsonValue | undefined): StreamTail {
  const field =
    value !== null && typeof value === "object" && !Array.isArray(value) ? value.offset : undefined;
  return { offset, last: Number.isFinite(field) ? (field as number) : undefined };
}

/**
 * An AppendLog in the `log` table of a tinyagents SQLite file. Each append is atomic and takes
 * the next offset of its stream (`MAX(offset) + 1`) inside an IMMEDIATE transaction, so offsets
 * are dense, monotonic and never reused, also with several processes writing to the same file.
 * Group commit: the appends (and status saves) of one event-loop turn share one transaction
 * (see `SqliteGroupCommit`). An append that resolved is committed (WAL, `synchronous = NORMAL`):
 * it survives a process crash.
 * Create it through `SqliteStore.open(...).appendLog`.
 */
export class SqliteAppendLog implements AppendLog {
  private readonly stmt: Record<"next" | "read" | "streams" | "last" | "lastOffset", SqliteStatement>;
  /** `INSERT INTO log` of n rows at index n, prepared on first use (n <= ROWS_PER_INSERT). */
  private readonly inserts: SqliteStatement[] = [];
  private readonly insertMany: (stream: string, lines: readonly string[]) => number[];
  private readonly insertGroups: (
    groups: readonly AppendGroup[],
    copies: readonly (string[] | undefined)[],
  ) => number[][];

  private readonly commit: SqliteGroupCommit | undefined;
  /** The streams' last rows as this connection wrote them (see `SqliteOwnWrites`). */
  private readonly tails: SqliteOwnWrites<StreamTail>;

  private readonly file: string;
  private readonly warn: (warning: StoreWarning) => void;

  /** @internal Use `SqliteStore.open`. */
  constructor(
    db: SqliteDb,
    commit?: SqliteGroupCommit,
    damaged: { file?: string; onWarning?: (warning: StoreWarning) => void } = {},
  ) {
    this.commit = commit;
    this.tails = new SqliteOwnWrites(db);
    this.file = damaged.file ?? db.filename;
    this.warn = damaged.onWarning ?? defaultStoreWarning;
    this.stmt = {
      next: db.prepare("SELECT COALESCE(MAX(offset) + 1, 0) AS next FROM log WHERE stream = ?"),
      read: db.prepare(
        "SELECT offset, value FROM log WHERE stream = ? AND offset >= ? ORDER BY offset LIMIT ?",
      ),
      streams: db.prepare("SELECT DISTINCT stream FROM log ORDER BY stream"),
      // The stream's last row: its offset (the next one is past it) and value (the check's).
      last: db.prepare("SELECT offset, value FROM log WHERE stream = ? ORDER BY offset DESC LIMIT 1"),
      // The same row's offset and its value's numeric `offset` field, read by SQLite's JSON
      // functions: a `checkOffset` needs no parse of the stored record (a JS object per commit).
      lastOffset: db.prepare(
        "SELECT offset, CASE WHEN json_type(value, '$.offset') IN ('integer', 'real') " +
          "THEN json_extract(value, '$.offset') END AS last FROM log WHERE stream = ? ORDER BY offset DESC LIMIT 1",
      ),
    };
    const insertAt = (stream: string, first: number, lines: readonly string[]): number[] => {
      const offsets = new Array<number>(lines.length);
      for (let done = 0; done < lines.length; done += ROWS_PER_INSERT) {
        const rows = Math.min(ROWS_PER_INSERT, lines.length - done);
        const params = new Array<unknown>(rows * 3);
        for (let i = 0; i < rows; i++) {
          const offset = first + done + i;
          params[i * 3] = stream;
          params[i * 3 + 1] = offset;
          params[i * 3 + 2] = lines[done + i];
          offsets[done + i] = offset;
        }
        this.insertStatement(db, rows).run(...params);
      }
      return offsets;
    };
    const tx = db.transaction((stream: string, lines: readonly string[]) => {
      this.tails.forget(stream);
      return insertAt(stream, (this.stmt.next.get(stream) as { next: number }).next, lines);
    });
    this.insertMany = (stream, lines) => tx.immediate(stream, lines);
    // Each group's check reads its stream's last value inside the same IMMEDIATE transaction:
    // no other connection can append in between (the journal's second-writer detection). The
    // same read gives the next offset.
    // A group's values are serialized here, inside the transaction, one group at a time: each
    // record's JSON text lives until its row is inserted, not across the whole turn's commit (at
    // a thousand runs in flight, megabytes of text a scavenge would copy and promote).
    // `copies[i]`: group i's lines, serialized at the call (a group not `valuesFrozen`).
    // A stream's tail this connection wrote last is remembered (`SqliteOwnWrites`): while no
    // other connection committed, a `checkOffset` group (the journal's) or one without a check
    // reads nothing back.
    const groupTx = db.transaction(
      (groups: readonly AppendGroup[], copies: readonly (string[] | undefined)[]) =>
        groups.map(({ stream, values, check, checkOffset }, i) => {
          const lines = copies[i] ?? values.map((v) => serializeEntry(v, stream));
          let next: number;
          const known = check === undefined || checkOffset !== undefined ? this.tails.get(stream) : undefined;
          if (known !== undefined) {
            checkOffset?.(known.last);
            next = known.offset + 1;
          } else if (checkOffset !== undefined) {
            const tail = this.stmt.lastOffset.get(stream) as
              | { offset: number; last: number | null }
              | undefined;
            checkOffset(tail === undefined || tail.last === null ? undefined : tail.last);
            next = tail === undefined ? 0 : tail.offset + 1;
          } else if (check === undefined) {
            next = (this.stmt.next.get(stream) as { next: number }).next;
          } else {
            const row = this.stmt.last.get(stream) as { offset: number; value: string } | undefined;
            check(row === undefined ? undefined : (JSON.parse(row.value) as JsonValue));
            next = row === undefined ? 0 : row.offset + 1;
          }
          const offsets = insertAt(stream, next, lines);
          // Remembered from a stream's second commit on: a new stream's first commit (every
          // 1-step run's only one) costs no entry. The tail's `offset` field is read from the
          // value only when the text was made from it now (a group copied at the call may have
          // changed since).
          if (next > 0 && copies[i] === undefined && offsets.length > 0)
            this.tails.set(stream, streamTail(next + offsets.length - 1, values[values.length - 1]));
          else this.tails.forget(stream);
          return offsets;
        }),
    );
    this.insertGroups = (groups, copies) => groupTx.immediate(groups, copies);
  }

  /** The INSERT of `rows` rows, prepared once per connection. */
  private insertStatement(db: SqliteDb, rows: number): SqliteStatement {
    let statement = this.inserts[rows];
    if (statement === undefined) {
      const values = new Array<string>(rows).fill("(?, ?, ?)").join(", ");
      statement = db.prepare(`INSERT INTO log (stream, offset, value) VALUES ${values}`);
      this.inserts[rows] = statement;
    }
    return statement;
  }

  async append(stream: string, value: JsonValue): Promise<number> {
    return (await this.appendMany(stream, [value]))[0] as number;
  }

  async appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]> {
    const lines = values.map((v) => serializeEntry(v, stream));
    if (lines.length === 0) return [];
    const write = () =>
      guard(`append to stream "${stream}"`, () => this.insertMany(stream, lines), this.file);
    return this.commit === undefined ? write() : this.commit.submit(write);
  }

  /**
   * Group commit: every group in one IMMEDIATE transaction (all or nothing); a group's `check`
   * runs against its stream's last stored value inside it, and refusing aborts the whole batch.
   * A group's values are copied (serialized) at the call, unless it is `valuesFrozen`: those are
   * serialized when the transaction runs (at the end of this turn), group by group.
   */
  appendGroups(groups: readonly AppendGroup[]): Promise<number[][]> {
    // Not an async function: the group commit's promise is the result (one promise less per
    // journal batch).
    try {
      if (groups.length === 0) return Promise.resolve([]);
      const copies = groups.map((g) =>
        g.valuesFrozen === true ? undefined : g.values.map((v) => serializeEntry(v, g.stream)),
      );
      const write = () =>
        guard(`append to ${groups.length} streams`, () => this.insertGroups(groups, copies), this.file);
      return this.commit === undefined ? Promise.resolve(write()) : this.commit.submit(write);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]> {
    validateRead(offset, limit, stream);
    const rows = guard(
      `read stream "${stream}"`,
      () => this.stmt.read.all(stream, offset, limit),
      this.file,
    ) as {
      offset: number;
      value: string;
    }[];
    // A damaged row is skipped with a warning (its offset stays taken), like a corrupt JSONL line.
    const out: AppendLogEntry[] = [];
    for (const r of rows) {
      const value = parseStoredRecord(
        r.value,
        { file: this.file, record: stream, offset: r.offset },
        this.warn,
      );
      if (value !== undefined) out.push({ offset: r.offset, value });
    }
    return out;
  }

  async length(stream: string): Promise<number> {
    return guard(
      `measure stream "${stream}"`,
      () => (this.stmt.next.get(stream) as { next: number }).next,
      this.file,
    );
  }

  async listStreams(): Promise<string[]> {
    return guard(
      "list streams",
      () => (this.stmt.streams.all() as { stream: string }[]).map((r) => r.stream),
      this.file,
    );
  }
}
