import { createHash } from "node:crypto";
import type { AppendGroup } from "@tinyagents/harness/store";
import type { JsonValue } from "@tinyagents/inference";
import type pg from "pg";
import type { PostgresTables } from "./postgres-schema.js";
import { byRunId, type StatusRow, statusUpsertTail } from "./postgres-status-row.js";
import type { StreamTails } from "./postgres-stream-tails.js";

/** One stream's lines to append (serialized), with the journal's optional tail checks. */
export interface LogGroup {
  stream: string;
  lines: readonly string[];
  check: AppendGroup["check"];
  checkOffset?: AppendGroup["checkOffset"];
  /** The last value's numeric `offset` field (what `checkOffset` of the next group reads). */
  lastOffset?: number | undefined;
}

/** A value's numeric `offset` field, as `AppendGroup.checkOffset` reads it (undefined: none). */
export function offsetField(value: JsonValue | undefined): number | undefined {
  const offset =
    typeof value === "object" && value !== null && !Array.isArray(value) ? value.offset : undefined;
  return typeof offset === "number" && Number.isFinite(offset) ? offset : undefined;
}

/** A group-commit write as data, so that a whole batch of them can be one statement. */
export type StatementPart =
  | { kind: "append"; groups: readonly LogGroup[] }
  | { kind: "status"; rows: readonly StatusRow[] };

/** A prepared statement's name for `text`: its hash, so two schemas' statements never collide. */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`;
}

/**
 * A failure after the statement committed (the status store's retention): the batch must not run
 * again (its appends would be written twice), so it carries no server `severity`.
 */
export class AfterCommitError extends Error {
  readonly code: string | undefined;
  constructor(cause: unknown) {
    super(
      `the write committed, but keeping the finished-run bound failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "AfterCommitError";
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === "string" ? code : undefined;
  }
}

/** A prepared statement: `name` undefined when statements are not prepared by name. */
interface Statement {
  name: string | undefined;
  text: string;
}

/** One stream of a batch: the tail it continues (`expect`, 0 for a new stream) and its new lines. */
interface StreamWrite {
  expect: number;
  next: number;
  last: string | undefined;
  lastOffset: number | undefined;
  lines: string[];
}

/**
 * A group commit's log appends and status saves as ONE statement, sent as one round trip with no
 * BEGIN / COMMIT (a statement on its own is a transaction: all of it commits or none): the
 * appended streams' `log_streams` rows are claimed by compare-and-set against the tails this
 * process last committed (a new stream must not exist yet), the rows are inserted at the offsets
 * that implies, the statuses are upserted under the same rule as one save, and the statement
 * fails as a whole when any stream moved on since (another writer appended). A batch this path
 * cannot take (a tail it does not know and a check that needs it, a check refusing, one run's
 * status twice) or a statement that failed goes the slow way: one transaction that locks, reads
 * and checks (`PostgresGroupCommit`). Prepared by name per connection unless the store's
 * `namedStatements` is false (planning it is about as costly as running it); a pooler that lost
 * the named statement makes it fail, and the batch then takes the transaction path.
 *
 * The lines and the status records travel as one text each, joined by line feeds and split by
 * the server (JSON text is never empty and never holds a raw line feed): pg escapes every element
 * of an array parameter and the server parses it, which cost the client about as much as the rest
 * of its commit. A batch of at most one stream and one status — one run's turn, what a run with a
 * real model commits at every step — takes a one-run form with scalar parameters: one for a new
 * stream (a plain insert of its row) and one for a stream this store wrote before (it advances
 * it); any other batch takes the form with arrays. A one-run form is less than half the work of
 * the array form on both sides, whose plan has some 40 nodes to start and finish per call
 * (measured per 1-step run, client + server CPU: about 100 µs against 240).
 */
export class PostgresOneStatementCommit {
  private readonly pool: pg.Pool;
  private readonly tails: StreamTails;
  private readonly finished: (count: number) => Promise<void>;
  private readonly many: Statement;
  /** The one-run forms: a new stream's (or no stream's), and a continued stream's. */
  private readonly newStream: Statement;
  private readonly nextInStream: Statement;

  /**
   * `finished(count)` runs after a commit that newly finished `count` runs (the status store's
   * retention: count and evict as its bound needs) before the batch resolves.
   */
  constructor(
    pool: pg.Pool,
    tables: PostgresTables,
    tails: StreamTails,
    finished: (count: number) => Promise<void>,
    named = true,
  ) {
    this.pool = pool;
    this.tails = tails;
    this.finished = finished;
    const t = tables;
    const columns =
      "(run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, lease_until, record)";
    // Newly finished: saved as finished, and not stored as finished before (no row, or active).
    const newlyFinished =
      "(SELECT count(*) FROM saved WHERE NOT saved.active AND saved.was_active IS DISTINCT FROM false)";
    // A claim that failed makes the whole statement fail (a cast error no plan can fold away).
    const refused =
      "('tinyagents: a stream moved on since this process last wrote it; ' || (SELECT count(*) FROM advanced))::bigint";
    const many =
      "WITH want AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS w(stream, expect, next)), " +
      // New streams: inserted only if nobody created them; known ones: advanced only from the
      // offset this process last committed (the row lock orders concurrent writers).
      `created AS (INSERT INTO ${t.logStreams} (stream, next_offset) SELECT stream, next FROM want ` +
      "WHERE expect = 0 ORDER BY stream ON CONFLICT (stream) DO NOTHING RETURNING stream), " +
      `advanced AS (UPDATE ${t.logStreams} AS s SET next_offset = w.next FROM want AS w ` +
      "WHERE s.stream = w.stream AND w.expect > 0 AND s.next_offset = w.expect RETURNING s.stream), " +
      `appended AS (INSERT INTO ${t.log} (stream, "offset", value) SELECT * FROM unnest($4::text[], $5::bigint[], string_to_array($6::text, E'\\n'))), ` +
      `prev AS (SELECT run_id, active FROM ${t.runStatus} WHERE run_id = ANY($7::text[])), ` +
      `saved AS (INSERT INTO ${t.runStatus} AS cur ${columns} ` +
      "SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::boolean[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], string_to_array($16::text, E'\\n')) " +
      statusUpsertTail() +
      "RETURNING cur.active, (SELECT p.active FROM prev AS p WHERE p.run_id = cur.run_id) AS was_active) " +
      "SELECT FROM generate_series(1, CASE WHEN (SELECT count(*) FROM created) + (SELECT count(*) FROM advanced) = cardinality($1::text[]) " +
      `THEN ${newlyFinished} ELSE ${refused} END)`;
    // $1 stream (NULL: no append), $2 the offset it continues (0: a new stream), $3 its lines
    // joined by line feeds, $4 its next offset after them; $5..$14 the status row (all NULL: none).
    // Every form returns one row without columns per newly finished run (`generate_series`; the
    // refusal, a cast error inside its bound, still fails the statement).
    const oneRun = (claim: string, finished: string) =>
      `WITH ${claim}, ` +
      `appended AS (INSERT INTO ${t.log} (stream, "offset", value) SELECT $1::text, $2::bigint + u.n - 1, u.line ` +
      "FROM unnest(string_to_array($3::text, E'\\n')) WITH ORDINALITY AS u(line, n)), " +
      `prev AS (SELECT active FROM ${t.runStatus} WHERE run_id = $5::text), ` +
      `saved AS (INSERT INTO ${t.runStatus} AS cur ${columns} ` +
      "SELECT $5::text, $6::text, $7::text, $8::text, $9::boolean, $10::bigint, $11::bigint, $12::bigint, $13::bigint, $14::text " +
      `WHERE $5::text IS NOT NULL ${statusUpsertTail()}RETURNING cur.active, (SELECT active FROM prev) AS was_active) ` +
      `SELECT FROM generate_series(1, ${finished})`;
    // A plain insert: a stream that exists already (another writer created it) fails the whole
    // statement on the row's primary key, cheaper than ON CONFLICT and a count.
    const newStream = oneRun(
      `created AS (INSERT INTO ${t.logStreams} (stream, next_offset) SELECT $1::text, $4::bigint WHERE $1::text IS NOT NULL)`,
      newlyFinished,
    );
    const nextInStream = oneRun(
      `advanced AS (UPDATE ${t.logStreams} SET next_offset = $4::bigint WHERE stream = $1::text AND next_offset = $2::bigint RETURNING 1)`,
      `CASE WHEN EXISTS (SELECT FROM advanced) THEN ${newlyFinished} ELSE ${refused} END`,
    );
    const name = (prefix: string, text: string) => (named ? statementName(prefix, text) : undefined);
    this.many = { name: name("tinyagents_commit", many), text: many };
    this.newStream = { name: name("tinyagents_commit_new", newStream), text: newStream };
    this.nextInStream = { name: name("tinyagents_commit_next", nextInStream), text: nextInStream };
  }

  /**
   * Commit `parts` in one statement; resolves with each part's result (an append's offsets per
   * group, a status save's `undefined`), or `undefined` when this batch must take the slow path.
   * Rejects with the driver's error when the statement failed (nothing of it was written).
   */
  async commit(parts: readonly StatementPart[]): Promise<unknown[] | undefined> {
    const streams = new Map<string, StreamWrite>();
    let statuses: StatusRow[] = [];
    const results: unknown[] = [];
    for (const part of parts) {
      if (part.kind === "status") {
        statuses = statuses.length === 0 ? [...part.rows] : statuses.concat(part.rows);
        results.push(undefined);
        continue;
      }
      const offsets: number[][] = [];
      for (const g of part.groups) {
        let stream = streams.get(g.stream);
        if (stream === undefined) {
          const tail = this.tails.get(g.stream);
          const next = tail?.next ?? 0;
          stream = { expect: next, next, last: tail?.last, lastOffset: tail?.lastOffset, lines: [] };
          streams.set(g.stream, stream);
        }
        if (g.checkOffset !== undefined) {
          // The tail's offset field, remembered whatever the line's size: no parse, no size limit.
          try {
            g.checkOffset(stream.next === 0 ? undefined : stream.lastOffset);
          } catch {
            return undefined; // the slow path checks against the stored tail, and reports it
          }
        } else if (g.check !== undefined) {
          if (stream.next > 0 && stream.last === undefined) return undefined; // tail too large to keep
          try {
            g.check(stream.last === undefined ? undefined : (JSON.parse(stream.last) as JsonValue));
          } catch {
            return undefined; // the slow path checks against the stored tail, and reports it
          }
        }
        const groupOffsets: number[] = [];
        for (const line of g.lines) {
          groupOffsets.push(stream.next++);
          stream.lines.push(line);
        }
        offsets.push(groupOffsets);
        if (g.lines.length > 0) {
          stream.last = g.lines.at(-1);
          stream.lastOffset = g.lastOffset;
        }
      }
      results.push(offsets);
    }
    // Run id order (as saveMany's), so two processes saving overlapping runs lock them alike;
    // one run's status twice cannot be one upsert (the slow path applies them in order).
    if (statuses.length > 1) {
      statuses.sort(byRunId);
      for (let i = 1; i < statuses.length; i++) {
        if (statuses[i]?.[0] === statuses[i - 1]?.[0]) return undefined;
      }
    }
    // Lines and records go as line-feed-joined text: JSON text, never empty and never holding a
    // raw line feed. Anything else (no caller of this store writes it) takes the slow path.
    if (!joinable(streams, statuses)) return undefined;
    let statement: Statement;
    let values: unknown[];
    if (streams.size <= 1 && statuses.length <= 1) {
      values = oneRunValues(streams, statuses[0]);
      statement = values[1] === 0 ? this.newStream : this.nextInStream;
    } else {
      values = manyValues(streams, statuses);
      statement = this.many;
    }
    // As many rows (without columns) as runs the commit newly finished: the count is the
    // command tag's, with no column to describe, parse and convert.
    const { rowCount } = await this.pool.query({ ...statement, values });
    const finished = rowCount ?? 0;
    if (finished > 0) {
      try {
        await this.finished(finished);
      } catch (error) {
        throw new AfterCommitError(error);
      }
    }
    return results;
  }
}

/** Whether every line and status record can travel in line-feed-joined text (see `commit`). */
function joinable(streams: ReadonlyMap<string, StreamWrite>, statuses: readonly StatusRow[]): boolean {
  for (const stream of streams.values()) {
    for (const line of stream.lines) if (line === "" || line.includes("\n")) return false;
  }
  for (const row of statuses) if (row[9] === "" || row[9].includes("\n")) return false;
  return true;
}

/** A one-run form's parameters. */
function oneRunValues(streams: ReadonlyMap<string, StreamWrite>, status: StatusRow | undefined): unknown[] {
  const values: unknown[] = [null, 0, null, 0];
  for (const [name, stream] of streams) {
    values[0] = name;
    values[1] = stream.expect;
    values[2] = stream.lines.length === 1 ? stream.lines[0] : stream.lines.join("\n");
    values[3] = stream.next;
  }
  if (status === undefined) values.push(null, null, null, null, null, null, null, null, null, null);
  else values.push(...status);
  return values;
}

/** The array form's parameters: streams in name order (the order their rows are locked in). */
function manyValues(streams: ReadonlyMap<string, StreamWrite>, statuses: readonly StatusRow[]): unknown[] {
  const names = [...streams.keys()].sort();
  const rows: [string[], number[], string[]] = [[], [], []];
  const expect: number[] = [];
  const next: number[] = [];
  for (const name of names) {
    const stream = streams.get(name) as StreamWrite;
    expect.push(stream.expect);
    next.push(stream.next);
    stream.lines.forEach((line, i) => {
      rows[0].push(name);
      rows[1].push(stream.expect + i);
      rows[2].push(line);
    });
  }
  const columns: unknown[][] = Array.from({ length: 10 }, () => []);
  for (const row of statuses) {
    row.forEach((value, i) => {
      columns[i]?.push(value);
    });
  }
  // The lines and the records as one text each (the statement splits them on line feeds).
  return [
    names,
    expect,
    next,
    rows[0],
    rows[1],
    rows[2].join("\n"),
    ...columns.slice(0, 9),
    columns[9]?.join("\n"),
  ];
}
