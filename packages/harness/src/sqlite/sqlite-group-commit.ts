import { TinyAgentsError } from "@tinyagents/inference";
import { commitAtTurnEnd } from "../observability/next-turn.js";
import { type SqliteDb, sqliteError, sqliteErrorCode } from "./sqlite-database.js";

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Why a batch did not commit: one of its writes threw (rerun them one by one), or not. */
class WriteFailed {
  constructor(readonly error: unknown) {}
}

/** Longest time a scheduled commit blocks the event loop waiting for another connection's lock. */
export const LOCK_SLICE_MS = 20;

/**
 * Group commit for one SQLite connection: writes submitted during an event-loop turn run at its
 * end (`setImmediate`) in ONE IMMEDIATE transaction — one lock, one WAL commit — however many
 * journals, status writers and run trees submitted them. Writes the journal queues and status
 * writers hand in at a turn end (`afterThisTurn`) commit in that same turn end, once all of them
 * are in (`commitAtTurnEnd`), not one turn later: a run's records are queued and committed
 * within one turn. Each write keeps its own atomicity:
 * the batch runs its writes inline (no savepoint per write: two statements each saved on the hot
 * path), and when one of them throws, the whole batch rolls back and every write of it reruns
 * alone, in its own transaction, so only the failing one rejects. A write's promise resolves only
 * after the transaction holding it committed (that is its acknowledgement).
 * `flushNow()` commits what is pending synchronously (before closing the database).
 *
 * Another process holding the write lock (several workers sharing one file) does not freeze this
 * one: a scheduled commit waits for the lock at most {@link LOCK_SLICE_MS} at a time, then gives
 * the event loop back and tries again on a timer (writes submitted meanwhile join the batch),
 * until the connection's own busy timeout has passed — then the writes fail as before. The
 * synchronous `flushNow()` waits the whole busy timeout in one go.
 */
export class SqliteGroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private readonly commitAll: (batch: readonly Pending[]) => unknown[];
  private readonly commitOne: (work: () => unknown) => unknown;
  private readonly file: string;
  private readonly rollbackListeners: (() => void)[] = [];
  /** The connection's busy timeout: how long a commit may wait for the lock in all. */
  private readonly busyTimeoutMs: number;
  /** Whether scheduled commits wait for the lock in slices (a busy timeout longer than one). */
  private readonly slices: boolean;
  /** When the commit now waiting for the lock first found it taken (undefined: none waits). */
  private lockWaitSince: number | undefined;
  private retries = 0;
  /** Whether the batch being committed got past BEGIN (a busy BEGIN wrote nothing: retry it). */
  private began = false;

  private readonly db: SqliteDb;
  constructor(db: SqliteDb) {
    this.db = db;
    this.file = db.filename;
    const timeout = Number(db.pragma("busy_timeout", { simple: true }));
    this.busyTimeoutMs = Number.isFinite(timeout) && timeout > 0 ? timeout : 0;
    this.slices = this.busyTimeoutMs > LOCK_SLICE_MS;
    const outer = db.transaction(
      (batch: readonly Pending[]) => {
        this.began = true;
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
        commitAtTurnEnd(() => this.flushSoon());
      }
    });
  }

  /** Commit everything pending now (idempotent; a no-op when nothing is pending). */
  flushNow(): void {
    this.commitPending(false);
  }

  /** The scheduled commit: gives the event loop back while another connection holds the lock. */
  private flushSoon(): void {
    this.commitPending(this.slices);
  }

  private commitPending(yieldOnBusy: boolean): void {
    this.scheduled = false;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    let values: unknown[];
    this.began = false;
    try {
      values = yieldOnBusy ? this.commitWithinSlice(batch) : this.commitAll(batch);
      this.lockWaitSince = undefined;
      this.retries = 0;
    } catch (error) {
      if (error instanceof WriteFailed) {
        this.lockWaitSince = undefined;
        this.retries = 0;
        // One write failed and the batch rolled back: rerun each alone, so only it rejects.
        for (const listener of this.rollbackListeners) listener();
        if (batch.length === 1) (batch[0] as Pending).reject(error.error);
        else for (const p of batch) this.commitAlone(p);
        return;
      }
      if (yieldOnBusy && this.retryLater(batch, error)) return;
      this.lockWaitSince = undefined;
      this.retries = 0;
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

  /** Commit `batch`, waiting at most one {@link LOCK_SLICE_MS} slice for the write lock. */
  private commitWithinSlice(batch: readonly Pending[]): unknown[] {
    this.db.pragma(`busy_timeout = ${LOCK_SLICE_MS}`);
    try {
      return this.commitAll(batch);
    } finally {
      this.db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    }
  }

  /**
   * After a commit found the lock taken (BEGIN failed, nothing was written): put `batch` back in
   * front of what was submitted since and try again on a timer, unless the busy timeout is spent.
   */
  private retryLater(batch: Pending[], error: unknown): boolean {
    if (this.began || !sqliteErrorCode(error)?.startsWith("SQLITE_BUSY")) return false;
    const now = Date.now();
    this.lockWaitSince ??= now - LOCK_SLICE_MS;
    if (now - this.lockWaitSince >= this.busyTimeoutMs) return false;
    this.pending = [...batch, ...this.pending];
    this.scheduled = true;
    const delay = Math.min(2 ** this.retries++, LOCK_SLICE_MS);
    setTimeout(() => this.flushSoon(), delay);
    return true;
  }
}
