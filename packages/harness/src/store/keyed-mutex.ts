/**
 * Serializes async work per key inside one process: `run(key, fn)` starts `fn` only after every
 * earlier `run` with the same key has settled (fulfilled or rejected). Different keys run
 * concurrently. Idle keys are forgotten, so the map never grows with the number of keys seen.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Run `fn` exclusively for `key`; resolves or rejects with `fn`'s outcome. */
  run<T>(key: string, fn: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running (for tests and diagnostics). */
  get activeKeys(): number {
    return this.tails.size;
  }
}
