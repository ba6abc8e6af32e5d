import { TinyAgentsError } from "@tinyagents/inference";
import { type SqliteDb, sqliteError } from "./sqlite-database.js";

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Why a batch did not commit: one of its writes threw (rerun them one by one), or not. */
class WriteFailed {
  constructor(readonly error: unknown) {}
}

/**
 * Group commit for one SQLite connection: writes submitted during an event-loop turn run at its
 * end (`setImmediate`) in ONE IMMEDIATE transaction — one lock, one WAL commit — however many
 * journals, status writers and run trees submitted them. Each write keeps its own atomicity:
 * the batch runs its writes inline (no savepoint per write: two statements each saved on the hot
 * path), and when one of them throws, the whole batch rolls back and every write of it reruns
 * alone, in its own transaction, so only the failing one rejects. A write's promise resolves only
 * after the transaction holding it committed (that is its acknowledgement).
 * `flushNow()` commits what is pending synchronously (before closing the database).
 */
export class SqliteGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly commitAll: (batch: readonly Pending[]) => unknown[];
  private readonly commitOne: (work: () => unknown) => unknown;
  private readonly file: string;
  private readonly rollbackListeners: (() => void)[] = [];

  constructor(db: SqliteDb) {
    this.file = db.filename;
    const outer = db.transaction(
      (batch: readonly Pending[]) => {
        const values = new Array<unknown>(batch.length);
        for (let i = 0; i < batch.length; i++) {
          try {
            values[i] = (batch[i] as Pending).work();
          } catch (error) {
            throw new WriteFailed(error);
          }
        }
        return values;
      },
      { inline: true },
    );
    this.commitAll = (batch) => outer.immediate(batch);
    const alone = db.transaction((work: () => unknown) => work());
    this.commitOne = (work) => alone.immediate(work);
  }

  /**
   * Call `listener` whenever a batch rolled back because one of its writes failed, before its
   * writes rerun one by one: a writer that keeps state derived from its writes (the status
   * store's count of finished runs) forgets what the rolled-back attempt changed.
   */
  onRollback(listener: () => void): void {
    this.rollbackListeners.push(listener);
  }

  /**
   * Run `work` (a SqliteDb transaction function) in the next group commit. It must let its
   * failures propagate: inside the batch there is no savepoint to undo a part of it that failed
   * and was caught.
   */
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
    let values: unknown[];
    try {
      values = this.commitAll(batch);
    } catch (error) {
      if (error instanceof WriteFailed) {
        // One write failed and the batch rolled back: rerun each alone, so only it rejects.
        for (const listener of this.rollbackListeners) listener();
        if (batch.length === 1) (batch[0] as Pending).reject(error.error);
        else for (const p of batch) this.commitAlone(p);
        return;
      }
      // The batch's own BEGIN or COMMIT failed (busy, full disk...): every write in it is lost.
      const typed = TinyAgentsError.isInstance(error)
        ? error
        : sqliteError(`commit ${batch.length} write(s)`, error, this.file);
      for (const p of batch) p.reject(typed);
      return;
    }
    for (let i = 0; i < batch.length; i++) (batch[i] as Pending).resolve(values[i]);
  }

  private commitAlone(p: Pending): void {
    let value: unknown;
    try {
      value = this.commitOne(p.work);
    } catch (error) {
      p.reject(TinyAgentsError.isInstance(error) ? error : sqliteError("commit a write", error, this.file));
      return;
    }
    p.resolve(value);
  }
}
