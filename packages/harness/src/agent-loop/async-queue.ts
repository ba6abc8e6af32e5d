/**
 * A single-consumer async queue: producers `push` synchronously, the consumer iterates.
 * Used to turn the loop's event emissions into an `AsyncIterable` without WHATWG streams.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private closed = false;
  // One executor for every wait (a read that finds the queue empty), not a closure per read.
  private readonly wait = (resolve: (result: IteratorResult<T>) => void): void => {
    this.waiting = resolve;
  };

  push(item: T): void {
    if (this.closed) return;
    const waiter = this.waiting;
    if (waiter !== undefined) {
      this.waiting = undefined;
      waiter({ value: item, done: false });
    } else {
      this.items.push(item);
    }
  }

  close(): void {
    this.closed = true;
    const waiter = this.waiting;
    this.waiting = undefined;
    waiter?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.head < this.items.length) {
          const value = this.items[this.head] as T;
          this.items[this.head++] = undefined as T;
          if (this.head > 1024 && this.head * 2 > this.items.length) {
            this.items.splice(0, this.head);
            this.head = 0;
          }
          return Promise.resolve({ value, done: false });
        }
        if (this.closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise(this.wait);
      },
    };
  }
}
