import { type Clock, startTimer, type Timer, type TinyAgentsError } from "@tinyagents/inference";
import type { AbortHub } from "../context/abort-hub.js";
import { abortError } from "./abort.js";
import { shapeAnchors } from "./shape-anchors.js";

/**
 * Reads an async iterator item by item, each read settling early when the run aborts or the
 * stream's time budget runs out — like `race()` around every `next()`, but with one abort
 * watcher and one timer for the whole stream instead of one per item (a stream can carry tens
 * of thousands of deltas). Once failed, every later read rejects with the same error.
 * Call `dispose()` when done.
 */
export class StreamRacer<T> {
  private readonly iterator: AsyncIterator<T>;
  private readonly hub: AbortHub;
  private readonly where: string;
  private resolvePending: ((result: IteratorResult<T>) => void) | undefined;
  private rejectPending: ((error: unknown) => void) | undefined;
  private failure: { error: unknown } | undefined;
  private timer: Timer | undefined;
  // Bound once per stream, reused by every read.
  private readonly onResult = (result: IteratorResult<T>): void => {
    const resolve = this.resolvePending;
    this.settled();
    resolve?.(result);
  };
  private readonly onError = (error: unknown): void => {
    const reject = this.rejectPending;
    this.settled();
    reject?.(error);
  };
  private readonly onAbort = (): void => this.fail(abortError(this.hub, this.where));
  private readonly executor = (
    resolve: (result: IteratorResult<T>) => void,
    reject: (error: unknown) => void,
  ): void => {
    this.resolvePending = resolve;
    this.rejectPending = reject;
    this.iterator.next().then(this.onResult, this.onError);
  };

  /**
   * `timeoutMs` bounds the whole stream (not each item) on `clock`; when it passes, `onTimeout()` gives
   * the error every pending and later read rejects with.
   */
  constructor(
    iterator: AsyncIterator<T>,
    hub: AbortHub,
    where: string,
    timeoutMs?: number,
    onTimeout?: () => TinyAgentsError,
    clock?: Clock,
  ) {
    this.iterator = iterator;
    this.hub = hub;
    this.where = where;
    shapeAnchors.streamRacer = this;
    hub.watch(this.onAbort);
    if (timeoutMs !== undefined && onTimeout !== undefined && clock !== undefined) {
      this.timer = startTimer(clock, timeoutMs, () => this.fail(onTimeout()));
    }
  }

  /** The next item, or the abort / timeout error. */
  next(): Promise<IteratorResult<T>> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    return new Promise(this.executor);
  }

  /** Stop watching the run and clear the timer. */
  dispose(): void {
    this.hub.unwatch(this.onAbort);
    this.timer?.cancel();
    this.timer = undefined;
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = { error };
    this.dispose();
    const reject = this.rejectPending;
    this.settled();
    reject?.(error);
  }

  private settled(): void {
    this.resolvePending = undefined;
    this.rejectPending = undefined;
  }
}
