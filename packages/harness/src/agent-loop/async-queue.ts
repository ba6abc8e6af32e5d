/**
 * A single-consumer async queue: producers `push` synchronously, the consumer reads with `next()`
 * (it is its own iterator). Used to turn the loop's event emissions into an `AsyncIterable`
 * without WHATWG streams. The queue is unbounded: producers never wait for the consumer.
 *
 * A read that finds an item gets an already-settled promise; only a read that finds the queue
 * empty waits (one promise, settled by the next `push`, `close` or `fail`).
 */
export class AsyncQueue<T> implements AsyncIterable<T>, AsyncIterator<T> {
  private readonly items: T[] = [];
  private head = 0;
  private resolveWaiting: ((result: IteratorResult<T>) => void) | undefined;
  private rejectWaiting: ((error: unknown) => void) | undefined;
  private closed = false;
  private failure: { error: unknown } | undefined;
  // One executor for every wait (a read that finds the queue empty), not a closure per read.
  private readonly wait = (
    resolve: (result: IteratorResult<T>) => void,
    reject: (error: unknown) => void,
  ): void => {
    this.resolveWaiting = resolve;
    this.rejectWaiting = reject;
  };

  push(item: T): void {
    if (this.closed) return;
    const resolve = this.resolveWaiting;
    if (resolve !== undefined) {
      this.resolveWaiting = undefined;
      this.rejectWaiting = undefined;
      resolve({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  /** No more items: reads get what is queued, then `done`. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const resolve = this.resolveWaiting;
    this.resolveWaiting = undefined;
    this.rejectWaiting = undefined;
    resolve?.({ value: undefined, done: true });
  }

  /** No more items, ending in an error: reads get what is queued, then ONE rejection with `error`, then `done`. */
  fail(error: unknown): void {
    if (this.closed) return;
    this.closed = true;
    const reject = this.rejectWaiting;
    this.resolveWaiting = undefined;
    this.rejectWaiting = undefined;
    if (reject !== undefined) reject(error);
    else this.failure = { error };
  }

  /** The next queued item, taken synchronously; `undefined` when none is queued. */
  take(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const value = this.items[this.head] as T;
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    return value;
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) return Promise.resolve({ value: this.take() as T, done: false });
    if (this.closed) {
      const failure = this.failure;
      if (failure === undefined) return Promise.resolve({ value: undefined, done: true });
      this.failure = undefined;
      return Promise.reject(failure.error);
    }
    return new Promise(this.wait);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this;
  }
}
