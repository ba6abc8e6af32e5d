import type pg from "pg";
import { postgresError } from "./postgres-errors.js";
import { inTransaction, isRetryable } from "./postgres-transaction.js";

/** One write of a group commit: statements on the batch's connection, inside its transaction. */
export type GroupWork<R> = (client: pg.PoolClient) => Promise<R>;

interface Pending {
  action: string;
  work: GroupWork<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit over a pool: the writes submitted during one event-loop turn (journal appends of
 * every run, status saves) run at its end in ONE transaction — one round of locks, one WAL flush —
 * and their promises resolve only after it committed (the acknowledgement). One batch at a time:
 * what is submitted while a batch commits goes into the next one, so writes from this process
 * reach the database in submission order. Each write keeps its own atomicity: in a batch of
 * several, each runs inside a savepoint, so one failing write rolls back alone and rejects only
 * its caller. A deadlock (another process locked the same rows in another order) reruns the batch.
 */
export class PostgresGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;
  private readonly pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Run `work` in the next group commit; `action` names it in errors. */
  submit<R>(action: string, work: GroupWork<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({
        action,
        work: work as GroupWork<unknown>,
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
    setImmediate(() => {
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
    let outcomes: { ok: boolean; value: unknown }[];
    try {
      outcomes = await inTransaction(this.pool, async (client) => {
        if (batch.length === 1) {
          // Alone in its transaction: its failure rolls back only itself.
          const p = batch[0] as Pending;
          return [{ ok: true, value: await p.work(client) }];
        }
        const results: { ok: boolean; value: unknown }[] = [];
        for (const p of batch) {
          await client.query("SAVEPOINT tinyagents_write");
          try {
            results.push({ ok: true, value: await p.work(client) });
            await client.query("RELEASE SAVEPOINT tinyagents_write");
          } catch (error) {
            if (isRetryable(error)) throw error; // rerun the whole batch
            await client.query("ROLLBACK TO SAVEPOINT tinyagents_write");
            results.push({ ok: false, value: error });
          }
        }
        return results;
      });
    } catch (error) {
      for (const p of batch) p.reject(postgresError(p.action, error));
      return;
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(postgresError(p.action, outcome.value));
    });
  }
}
