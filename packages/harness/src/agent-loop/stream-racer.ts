import { type Clock, startTimer, type Timer, type TinyAgentsError } from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import type { AbortHub } from "../context/abort-hub.js";
import { shapeAnchors } from "./shape-anchors.js";

/**
 * Reads an async iterator to its end, handing each item to a callback, and stops at once — even
 * while a read is still pending (a stalled stream) — when the run aborts or the stream's time
 * budget runs out. One abort watcher and one timer for the whole stream, and no race per item:
 * each item is read by one reaction (`then`) on the iterator's own `next()` promise, and an
 * abort or timeout settles the one promise `readAll` returned instead of racing every read (a
 * stream can carry tens of thousands of deltas). A read still pending at that moment is left to
 * the iterator: its item, when it comes, is dropped. Call `dispose()` when done.
 */
export class StreamRacer<T> {
  private readonly iterator: AsyncIterator<T>;
  private readonly hub: AbortHub;
  private readonly where: string;
  private rejectRead: ((error: unknown) => void) | undefined;
  private failure: { error: unknown } | undefined;
  private timer: Timer | undefined;
  private readonly onAbort = (): void => this.fail(abortError(this.hub, this.where));

  /**
   * `timeoutMs` bounds the whole stream (not each item) on `clock`; when it passes, `onTimeout()` gives
   * the error `readAll` rejects with.
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

  /**
   * Read every item, in order, into `onItem`. Resolves when the iterator is done; rejects with the
   * iterator's error, with what `onItem` throws, or with the abort / timeout error — then no
   * further item is read or handed over. Call it once.
   */
  readAll(onItem: (item: T) => void): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure.error);
    return new Promise<void>((resolve, reject) => {
      this.rejectRead = reject;
      // Whichever settles first wins: the drain's end, or `fail` (abort, timeout) while it waits.
      this.drain(onItem, resolve, reject);
    });
  }

  /** Stop watching the run and clear the timer. */
  dispose(): void {
    this.hub.unwatch(this.onAbort);
    this.timer?.cancel();
    this.timer = undefined;
  }

  /**
   * Read the next item, hand it over, read again: one `then` on each `next()` promise, no
   * `async` function (resuming one per item costs more than a reaction, per streamed delta).
   */
  private drain(onItem: (item: T) => void, resolve: () => void, reject: (error: unknown) => void): void {
    const iterator = this.iterator;
    const read = (): void => {
      let pending: Promise<IteratorResult<T>>;
      try {
        // `Promise.resolve`: an iterator may hand back a plain result or a foreign thenable.
        pending = Promise.resolve(iterator.next());
      } catch (thrown) {
        reject(thrown);
        return;
      }
      pending.then(onNext, reject);
    };
    const onNext = (next: IteratorResult<T>): void => {
      if (this.failure !== undefined) return;
      if (next.done) {
        resolve();
        return;
      }
      try {
        onItem(next.value);
      } catch (thrown) {
        reject(thrown);
        return;
      }
      if (this.failure === undefined) read();
    };
    read();
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = { error };
    this.dispose();
    const reject = this.rejectRead;
    this.rejectRead = undefined;
    reject?.(error);
  }
}
