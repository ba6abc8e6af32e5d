import { commitAtTurnEnd } from "@tinyagents/harness/observability";
import { TinyAgentsError } from "@tinyagents/inference";
import type pg from "pg";
import { type PgTarget, postgresError } from "./postgres-errors.js";
import type { StatementPart } from "./postgres-one-statement-commit.js";
import { inTransaction } from "./postgres-transaction.js";

/**
 * Whether a failed batch failed in one of its writes — an error the server reported (a
 * `DatabaseError` carries a `severity`) or a write's own refusal (a tinyagents error, e.g. a
 * journal's `conflict`) — rather than in reaching the server (refused connection, pool closed),
 * which every write would meet again.
 */
function failedInWrite(error: unknown): boolean {
  return (
    TinyAgentsError.isInstance(error) ||
    typeof (error as { severity?: unknown } | undefined)?.severity === "string"
  );
}

/** One write of a group commit: statements on the batch's connection, inside its transaction. */
export type GroupWork<R> = (client: pg.PoolClient) => Promise<R>;

/**
 * Commits a batch whose writes are all data in one statement: each part's result, or `undefined`
 * when the batch must take the transaction path (see `PostgresOneStatementCommit`).
 */
export type OneStatementCommit = (parts: readonly StatementPart[]) => Promise<unknown[] | undefined>;

interface Pending {
  action: string;
  target: PgTarget;
  work: GroupWork<unknown>;
  /** The same write as data, when it can join a one-statement commit. */
  part: StatementPart | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit over a pool: the writes submitted during one event-loop turn (journal appends of
 * every run, status saves) run at its end in ONE transaction — one round of locks, one WAL flush —
 * and their promises resolve only after it committed (the acknowledgement). One batch at a time:
 * what is submitted while a batch commits goes into the next one, so writes from this process
 * reach the database in submission order. Each write keeps its own atomicity: the batch runs
 * optimistically with no savepoints (a savepoint and its release are two more round trips per
 * write, and writes rarely fail); when one write fails the whole batch rolls back and every write
 * of it runs again in a transaction of its own, so the failing write rejects alone and the others
 * commit. A deadlock (another process locked the same rows in another order) reruns the batch.
 * A batch of log appends and status saves only is first tried as ONE statement (one round trip,
 * no BEGIN / COMMIT: `PostgresOneStatementCommit`); a statement the server refused wrote nothing,
 * and the batch then runs as above.
 */
export class PostgresGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  private readonly pool: pg.Pool;
  private readonly oneStatement: OneStatementCommit | undefined;

  constructor(pool: pg.Pool, oneStatement?: OneStatementCommit) {
    this.pool = pool;
    this.oneStatement = oneStatement;
  }

  /**
   * Run `work` in the next group commit; `action` and `target` (its table) name it in errors.
   * `part` is the same write as data, for the one-statement path (its result must equal `work`'s).
   */
  submit<R>(action: string, target: PgTarget, work: GroupWork<R>, part?: StatementPart): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({
        action,
        target,
        work: work as GroupWork<unknown>,
        part,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.schedule();
    });
  }

  /** Resolves once everything submitted before the call is committed (or failed). */
  async flush(): Promise<void> {
    while (this.running !== undefined || this.pending.length > 0) {
      if (this.running === undefined) this.start();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running !== undefined) return;
    this.scheduled = true;
    // Writes the journal queues and status writers hand in at a turn end start their round trip
    // in that same turn end, once all of them are in, not one turn later (as SQLite's commit).
    commitAtTurnEnd(() => {
      this.scheduled = false;
      if (this.running === undefined) this.start();
    });
  }

  private start(): void {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    this.running = this.commit(batch).finally(() => {
      this.running = undefined;
      if (this.pending.length > 0) this.schedule();
    });
  }

  private async commit(batch: Pending[]): Promise<void> {
    let outcomes: unknown[] | undefined;
    if (this.oneStatement !== undefined && batch.every((p) => p.part !== undefined)) {
      try {
        outcomes = await this.oneStatement(batch.map((p) => p.part as StatementPart));
      } catch (error) {
        // Not refused by the server (a lost connection, a closed pool): the outcome is unknown,
        // so nothing may run it again.
        if (!failedInWrite(error)) {
          for (const p of batch) p.reject(postgresError(p.action, error, p.target));
          return;
        }
      }
      if (outcomes !== undefined) {
        batch.forEach((p, i) => {
          p.resolve(outcomes?.[i]);
        });
        return;
      }
    }
    try {
      outcomes = await inTransaction(this.pool, async (client) => {
        const results: unknown[] = [];
        for (const p of batch) results.push(await p.work(client));
        return results;
      });
    } catch (error) {
      if (batch.length === 1 || !failedInWrite(error)) {
        for (const p of batch) p.reject(postgresError(p.action, error, p.target));
        return;
      }
      // One write (or the COMMIT) failed and nothing of the batch was kept: each write again, alone,
      // so only the failing one rejects (the slow path; the fast one saves two round trips a write).
      for (const p of batch) {
        try {
          p.resolve(await inTransaction(this.pool, (client) => p.work(client)));
        } catch (each) {
          p.reject(postgresError(p.action, each, p.target));
        }
      }
      return;
    }
    batch.forEach((p, i) => {
      p.resolve(outcomes[i]);
    });
  }
}
