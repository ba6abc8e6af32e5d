import { TinyAgentsError } from "@tinyagents/inference";
import { type SqliteDb, sqliteError } from "./sqlite-database.js";

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
  private readonly file: string;

  /** The outcomes of the batch being committed, kept for when its COMMIT fails. */
  private outcomes: { ok: boolean; value: unknown }[] = [];

  constructor(db: SqliteDb) {
    this.file = db.filename;
    const outer = db.transaction((batch: readonly Pending[]) => {
      this.outcomes = [];
      for (const p of batch) {
        try {
          this.outcomes.push({ ok: true, value: p.work() });
        } catch (error) {
          this.outcomes.push({ ok: false, value: error });
        }
      }
      return this.outcomes;
    });
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
      // The batch's own BEGIN or COMMIT failed (busy, full disk...): every write in it is lost.
      // A write that failed with a storage error (SQLITE_FULL rolls the whole transaction back,
      // so COMMIT then fails with a bare "no transaction") says why better than COMMIT does.
      const cause = this.outcomes.find((o) => !o.ok && TinyAgentsError.isInstance(o.value, "storage"))?.value;
      const typed =
        cause ??
        (TinyAgentsError.isInstance(error)
          ? error
          : sqliteError(`commit ${batch.length} write(s)`, error, this.file));
      this.outcomes = [];
      for (const p of batch) p.reject(typed);
      return;
    }
    this.outcomes = [];
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i] as { ok: boolean; value: unknown };
      const p = batch[i] as Pending;
      if (outcome.ok) p.resolve(outcome.value);
      else p.reject(outcome.value);
    }
  }
}
