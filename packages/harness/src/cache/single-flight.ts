/**
 * Collapses concurrent calls with the same key into one: the first caller (the leader) runs the
 * work, callers arriving while it is in flight get the leader's promise. The entry is removed
 * when the work settles, so a failure is never cached and the next call runs afresh.
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  /** The in-flight promise for `key`, if a leader is running. */
  pending(key: string): Promise<T> | undefined {
    return this.inFlight.get(key);
  }

  /** Run `work` as the leader for `key` (callers should check {@link pending} first). */
  lead(key: string, work: () => Promise<T>): Promise<T> {
    const promise = work().finally(() => {
      if (this.inFlight.get(key) === promise) this.inFlight.delete(key);
    });
    this.inFlight.set(key, promise);
    return promise;
  }

  /** How many keys are in flight. */
  get size(): number {
    return this.inFlight.size;
  }
}
