import type { AppendLog } from "@tinyagents/harness";
import {
  type AppendGroup,
  type AppendLogEntry,
  serializeEntry,
  validateRead,
} from "@tinyagents/harness/store";
import type { JsonValue } from "@tinyagents/inference";
import type pg from "pg";
import { type PgTarget, pgDatabase, pgGuard } from "./postgres-errors.js";
import type { PostgresGroupCommit } from "./postgres-group-commit.js";
import { type LogGroup as Group, offsetField } from "./postgres-one-statement-commit.js";
import type { PostgresTables } from "./postgres-schema.js";
import type { StreamTails } from "./postgres-stream-tails.js";

/**
 * An AppendLog (event journals, chat histories) in the `log` table of a tinyagents Postgres
 * schema. Offsets are dense, strictly increasing and unique per stream ACROSS PROCESSES: an
 * append takes its offsets by incrementing the stream's row in `log_streams` (a row lock held to
 * commit, so concurrent writers of one stream queue up instead of interleaving), and the log's
 * primary key `(stream, offset)` refuses any duplicate that would slip past. Streams are locked
 * in name order, so writers of several streams cannot deadlock each other.
 * Group commit: the appends (and status saves) of one event-loop turn share one transaction; an
 * append resolves once it is committed. It remembers the tails it committed, so that its next
 * append to a stream is usually one statement (see `PostgresOneStatementCommit`).
 * Create it through `PostgresStore.open(...).appendLog`.
 */
export class PostgresAppendLog implements AppendLog {
  private readonly pool: pg.Pool;
  /** Runs a statement, turning driver errors into `storage` errors naming this table. */
  /** The table and database its statements go to (named in its errors). */
  private readonly target: PgTarget;
  private readonly guard: <T>(action: string, work: () => Promise<T>) => Promise<T>;
  private readonly commit: PostgresGroupCommit;
  private readonly tails: StreamTails;
  private readonly sql: Record<"allocate" | "last" | "insert" | "read" | "length" | "streams", string>;

  /** @internal Use `PostgresStore.open`. */
  constructor(pool: pg.Pool, tables: PostgresTables, commit: PostgresGroupCommit, tails: StreamTails) {
    this.pool = pool;
    this.tails = tails;
    this.target = { table: tables.log, database: pgDatabase(pool) };
    this.guard = pgGuard(this.target);
    this.commit = commit;
    this.sql = {
      allocate:
        `INSERT INTO ${tables.logStreams} (stream, next_offset) ` +
        "SELECT s, n FROM unnest($1::text[], $2::bigint[]) AS u(s, n) ORDER BY s " +
        `ON CONFLICT (stream) DO UPDATE SET next_offset = ${tables.logStreams}.next_offset + excluded.next_offset ` +
        "RETURNING stream, next_offset",
      // Each checked stream's last value before the offsets this transaction took: one statement
      // for every stream of the batch (a round trip per stream made group commits slow under load).
      last:
        "SELECT u.s AS stream, l.value FROM unnest($1::text[], $2::bigint[]) AS u(s, f) " +
        `CROSS JOIN LATERAL (SELECT value FROM ${tables.log} WHERE stream = u.s AND "offset" < u.f ` +
        'ORDER BY "offset" DESC LIMIT 1) AS l',
      insert: `INSERT INTO ${tables.log} (stream, "offset", value) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])`,
      read: `SELECT "offset", value FROM ${tables.log} WHERE stream = $1 AND "offset" >= $2 ORDER BY "offset" LIMIT $3`,
      length: `SELECT next_offset FROM ${tables.logStreams} WHERE stream = $1`,
      streams: `SELECT stream FROM ${tables.logStreams} WHERE next_offset > 0`,
    };
  }

  async append(stream: string, value: JsonValue): Promise<number> {
    return (await this.appendMany(stream, [value]))[0] as number;
  }

  async appendMany(stream: string, values: readonly JsonValue[]): Promise<number[]> {
    const lines = values.map((v) => serializeEntry(v, stream));
    if (lines.length === 0) return [];
    const [offsets] = await this.submit(`append to stream "${stream}"`, [
      { stream, lines, check: undefined, lastOffset: offsetField(values.at(-1)) },
    ]);
    return offsets as number[];
  }

  /**
   * Group commit: every group in one transaction (all or nothing); a group's `check` runs against
   * its stream's last stored value while the stream is locked, and refusing aborts the whole batch.
   */
  async appendGroups(groups: readonly AppendGroup[]): Promise<number[][]> {
    const prepared = groups.map(
      (g): Group => ({
        stream: g.stream,
        lines: g.values.map((v) => serializeEntry(v, g.stream)),
        check: g.check,
        checkOffset: g.checkOffset,
        lastOffset: offsetField(g.values.at(-1)),
      }),
    );
    if (prepared.length === 0) return [];
    return this.submit(`append to ${prepared.length} streams`, prepared);
  }

  /** One group-commit write of `groups`; remembers the streams' committed tails (or forgets them). */
  private async submit(action: string, groups: readonly Group[]): Promise<number[][]> {
    let offsets: number[][];
    try {
      offsets = await this.commit.submit(action, this.target, (client) => this.write(client, groups), {
        kind: "append",
        groups,
      });
    } catch (error) {
      for (const g of groups) this.tails.forget(g.stream);
      throw error;
    }
    groups.forEach((g, i) => {
      const last = offsets[i]?.at(-1);
      const line = g.lines.at(-1);
      // A writer that checks the tail's offset field (an event journal) never needs the line:
      // keeping it would hold the last record of up to 4,096 streams alive for nothing.
      if (last !== undefined && line !== undefined)
        this.tails.set(g.stream, last + 1, g.checkOffset === undefined ? line : undefined, g.lastOffset);
    });
    return offsets;
  }

  async readFrom(stream: string, offset: number, limit: number): Promise<AppendLogEntry[]> {
    validateRead(offset, limit, stream);
    const { rows } = await this.guard(`read stream "${stream}"`, () =>
      this.pool.query<{ offset: string; value: string }>(this.sql.read, [stream, offset, limit]),
    );
    return rows.map((r) => ({ offset: Number(r.offset), value: JSON.parse(r.value) as JsonValue }));
  }

  async length(stream: string): Promise<number> {
    const { rows } = await this.guard(`measure stream "${stream}"`, () =>
      this.pool.query<{ next_offset: string }>(this.sql.length, [stream]),
    );
    return rows[0] === undefined ? 0 : Number(rows[0].next_offset);
  }

  async listStreams(): Promise<string[]> {
    const { rows } = await this.guard("list streams", () =>
      this.pool.query<{ stream: string }>(this.sql.streams),
    );
    return rows.map((r) => r.stream).sort();
  }

  /** Allocate every group's offsets (locking the streams), run the checks, insert the rows. */
  private async write(client: pg.PoolClient, groups: readonly Group[]): Promise<number[][]> {
    const counts = new Map<string, number>();
    for (const g of groups) counts.set(g.stream, (counts.get(g.stream) ?? 0) + g.lines.length);
    const streams = [...counts.keys()];
    const allocated = await client.query<{ stream: string; next_offset: string }>(this.sql.allocate, [
      streams,
      streams.map((s) => counts.get(s)),
    ]);
    // Next free offset per stream, from the first offset this transaction took.
    const next = new Map<string, number>();
    for (const row of allocated.rows) {
      next.set(row.stream, Number(row.next_offset) - (counts.get(row.stream) as number));
    }
    const seen = await this.storedTails(client, groups, next); // last line per checked stream
    const rows: [string[], number[], string[]] = [[], [], []];
    const result: number[][] = [];
    for (const g of groups) {
      const first = next.get(g.stream) as number;
      if (g.checkOffset !== undefined || g.check !== undefined) {
        const line = seen.get(g.stream);
        const last = line === undefined ? undefined : (JSON.parse(line) as JsonValue);
        if (g.checkOffset !== undefined) g.checkOffset(offsetField(last));
        else g.check?.(last);
      }
      const offsets = g.lines.map((line, i) => {
        rows[0].push(g.stream);
        rows[1].push(first + i);
        rows[2].push(line);
        return first + i;
      });
      next.set(g.stream, first + g.lines.length);
      const tail = g.lines[g.lines.length - 1];
      if (tail !== undefined) seen.set(g.stream, tail);
      result.push(offsets);
    }
    if (rows[0].length > 0) await client.query(this.sql.insert, rows);
    return result;
  }

  /** The stored last line of every stream a group checks (before this transaction's offsets). */
  private async storedTails(
    client: pg.PoolClient,
    groups: readonly Group[],
    next: ReadonlyMap<string, number>,
  ): Promise<Map<string, string>> {
    const tails = new Map<string, string>();
    const checked = groups.filter((g) => g.check !== undefined || g.checkOffset !== undefined);
    const streams = [...new Set(checked.map((g) => g.stream))].filter(
      (stream) => (next.get(stream) as number) > 0,
    );
    if (streams.length === 0) return tails;
    const { rows } = await client.query<{ stream: string; value: string }>(this.sql.last, [
      streams,
      streams.map((s) => next.get(s)),
    ]);
    for (const row of rows) tails.set(row.stream, row.value);
    return tails;
  }
}
