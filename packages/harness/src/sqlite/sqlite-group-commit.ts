import type { SqliteDb } from "./sqlite-database.js";

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for one SQLite connection: writes submitted during an event-loop turn run at its
 * end (`setImmediate`) in ONE IMMEDIATE transaction — one lock, one WAL commit — however many
 * journals, status writers and run trees submitted them. Each write keeps its own atomicity:
 * writes are transaction functions, which run as savepoints (see sqlite-database.ts) inside the outer
 * transaction, so one failing write rolls back alone and rejects only its caller. A write's
 * promise resolves only after the outer transaction committed (that is its acknowledgement).
 * `flushNow()` commits what is pending synchronously (before closing the database).
 */
export class SqliteGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly commitAll: (batch: readonly Pending[]) => unknown[];

  constructor(db: SqliteDb) {
    const outer = db.transaction((batch: readonly Pending[]) =>
      batch.map((p) => {
        try {
          return { ok: true, value: p.work() };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    );
    this.commitAll = (batch) => outer.immediate(batch);
  }

  /** Run `work` (a SqliteDb transaction function) in the next group commit. */
  submit<R>(work: () => R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flushNow());
      }
    });
  }

  /** Commit everything pending now (idempotent; a no-op when nothing is pending). */
  flushNow(): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let outcomes: unknown[];
    try {
      outcomes = this.commitAll(batch);
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      const p = batch[i] as Pending;
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.value);
    }
  }
}
