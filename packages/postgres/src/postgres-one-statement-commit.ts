import { createHash } from "node:crypto";
import type { HarnessRunStatus } from "@tinyagents/harness";
import { isActiveStatus } from "@tinyagents/harness/observability";
import type { AppendGroup } from "@tinyagents/harness/store";
import type { JsonValue } from "@tinyagents/inference";
import type pg from "pg";
import type { PostgresTables } from "./postgres-schema.js";
import type { StreamTails } from "./postgres-stream-tails.js";

/** One stream's lines to append (serialized), with the journal's optional tail check. */
export interface LogGroup {
  stream: string;
  lines: readonly string[];
  check: AppendGroup["check"];
}

/** A group-commit write as data, so that a whole batch of them can be one statement. */
export type StatementPart =
  | { kind: "append"; groups: readonly LogGroup[] }
  | { kind: "status"; statuses: readonly HarnessRunStatus[] };

/** A prepared statement's name for `text`: its hash, so two schemas' statements never collide. */
export function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`;
}

/** The columns of a run_status row, in the order the statements list them. */
export function statusRow(status: HarnessRunStatus, active: boolean): unknown[] {
  return [
    status.runId,
    status.rootRunId,
    status.threadId ?? null,
    status.status,
    active,
    status.startedAt,
    status.updatedAt,
    status.endedAt ?? null,
    status.leaseUntil ?? status.updatedAt,
    JSON.stringify(status),
  ];
}

/**
 * The conditional status upsert's SET and WHERE (fencing epoch first, then not older and never a
 * finished run back to active), shared by the one-statement commit and the status store.
 */
export function statusUpsertTail(): string {
  return (
    "ON CONFLICT (run_id) DO UPDATE SET " +
    "root_run_id = excluded.root_run_id, thread_id = excluded.thread_id, status = excluded.status, " +
    "active = excluded.active, started_at = excluded.started_at, updated_at = excluded.updated_at, " +
    "ended_at = excluded.ended_at, lease_until = excluded.lease_until, record = excluded.record " +
    // Fencing first: a record of a higher epoch always wins, one of a lower epoch never does.
    "WHERE COALESCE((excluded.record::jsonb->>'epoch')::bigint, 0) > COALESCE((cur.record::jsonb->>'epoch')::bigint, 0) " +
    "OR (COALESCE((excluded.record::jsonb->>'epoch')::bigint, 0) = COALESCE((cur.record::jsonb->>'epoch')::bigint, 0) " +
    "AND excluded.updated_at >= cur.updated_at AND NOT (cur.active = false AND excluded.active = true)) "
  );
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
 */
export class PostgresOneStatementCommit {
  private readonly pool: pg.Pool;
  private readonly tails: StreamTails;
  private readonly finished: (count: number) => Promise<void>;
  private readonly statement: { name: string | undefined; text: string };

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
    const text =
      "WITH want AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS w(stream, expect, next)), " +
      // New streams: inserted only if nobody created them; known ones: advanced only from the
      // offset this process last committed (the row lock orders concurrent writers).
      `created AS (INSERT INTO ${t.logStreams} (stream, next_offset) SELECT stream, next FROM want ` +
      "WHERE expect = 0 ORDER BY stream ON CONFLICT (stream) DO NOTHING RETURNING stream), " +
      `advanced AS (UPDATE ${t.logStreams} AS s SET next_offset = w.next FROM want AS w ` +
      "WHERE s.stream = w.stream AND w.expect > 0 AND s.next_offset = w.expect RETURNING s.stream), " +
      `appended AS (INSERT INTO ${t.log} (stream, "offset", value) SELECT * FROM unnest($4::text[], $5::bigint[], $6::text[])), ` +
      `prev AS (SELECT run_id, active FROM ${t.runStatus} WHERE run_id = ANY($7::text[])), ` +
      `saved AS (INSERT INTO ${t.runStatus} AS cur (run_id, root_run_id, thread_id, status, active, started_at, updated_at, ended_at, lease_until, record) ` +
      "SELECT * FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::boolean[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[], $16::text[]) " +
      statusUpsertTail() +
      "RETURNING cur.active, (SELECT p.active FROM prev AS p WHERE p.run_id = cur.run_id) AS was_active) " +
      // Every stream claimed, or the whole statement fails (a cast error no plan can fold away).
      "SELECT CASE WHEN (SELECT count(*) FROM created) + (SELECT count(*) FROM advanced) = cardinality($1::text[]) " +
      "THEN (SELECT count(*) FROM saved WHERE NOT saved.active AND saved.was_active IS DISTINCT FROM false) " +
      "ELSE ('tinyagents: a stream moved on since this process last wrote it; ' || (SELECT count(*) FROM advanced))::bigint " +
      "END AS finished";
    this.statement = { name: named ? statementName("tinyagents_commit", text) : undefined, text };
  }

  /**
   * Commit `parts` in one statement; resolves with each part's result (an append's offsets per
   * group, a status save's `undefined`), or `undefined` when this batch must take the slow path.
   * Rejects with the driver's error when the statement failed (nothing of it was written).
   */
  async commit(parts: readonly StatementPart[]): Promise<unknown[] | undefined> {
    const streams = new Map<string, { expect: number; next: number; last: string | undefined }>();
    const rows: [string[], number[], string[]] = [[], [], []];
    const statuses: HarnessRunStatus[] = [];
    const results: unknown[] = [];
    for (const part of parts) {
      if (part.kind === "status") {
        statuses.push(...part.statuses);
        results.push(undefined);
        continue;
      }
      const offsets: number[][] = [];
      for (const g of part.groups) {
        let stream = streams.get(g.stream);
        if (stream === undefined) {
          const tail = this.tails.get(g.stream);
          stream = { expect: tail?.next ?? 0, next: tail?.next ?? 0, last: tail?.last };
          streams.set(g.stream, stream);
        }
        if (g.check !== undefined) {
          if (stream.next > 0 && stream.last === undefined) return undefined; // tail too large to keep
          try {
            g.check(stream.last === undefined ? undefined : (JSON.parse(stream.last) as JsonValue));
          } catch {
            return undefined; // the slow path checks against the stored tail, and reports it
          }
        }
        const first = stream.next;
        offsets.push(
          g.lines.map((line, i) => {
            rows[0].push(g.stream);
            rows[1].push(first + i);
            rows[2].push(line);
            return first + i;
          }),
        );
        stream.next += g.lines.length;
        stream.last = g.lines.at(-1) ?? stream.last;
      }
      results.push(offsets);
    }
    // Run id order (as saveMany's), so two processes saving overlapping runs lock them alike;
    // one run's status twice cannot be one upsert (the slow path applies them in order).
    statuses.sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    for (let i = 1; i < statuses.length; i++) {
      if (statuses[i]?.runId === statuses[i - 1]?.runId) return undefined;
    }
    const names = [...streams.keys()].sort();
    const columns: unknown[][] = Array.from({ length: 10 }, () => []);
    for (const status of statuses) {
      statusRow(status, isActiveStatus(status.status)).forEach((value, i) => {
        columns[i]?.push(value);
      });
    }
    const { rows: out } = await this.pool.query<{ finished: string }>({
      ...this.statement,
      values: [
        names,
        names.map((s) => streams.get(s)?.expect),
        names.map((s) => streams.get(s)?.next),
        ...rows,
        ...columns,
      ],
    });
    const finished = Number(out[0]?.finished ?? 0);
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
