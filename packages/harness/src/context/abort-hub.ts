/**
 * The abort state of one run, with cheap fan-out and a lazily created `AbortSignal`.
 *
 * `AbortController`/`AbortSignal` go through Node's EventTarget: creating one and adding or
 * removing listeners costs microseconds and a few hundred bytes each. The loop checks and races
 * cancellation at every model call, stream item and tool, so it works against this hub instead;
 * a real `AbortSignal` is only built when someone reads `signal` (a tool, a provider adapter that
 * forwards it to `fetch`, a sub-agent), and then follows the hub.
 */
export class AbortHub {
  private isAborted = false;
  private abortReason: unknown;
  private callbacks: Set<() => void> | undefined;
  private controller: AbortController | undefined;

  /** Whether the run was cancelled. */
  get aborted(): boolean {
    return this.isAborted;
  }

  /** Why (the value given to `abort`, or a DOM `AbortError` when none was given). */
  get reason(): unknown {
    return this.abortReason;
  }

  /** A standard signal that aborts with the hub (created on first read). */
  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isAborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Abort: the signal (if created) aborts, then every watcher is called once. Later calls do nothing. */
  abort(reason?: unknown): void {
    if (this.isAborted) return;
    this.isAborted = true;
    this.abortReason =
      reason === undefined ? new DOMException("This operation was aborted", "AbortError") : reason;
    this.controller?.abort(this.abortReason);
    const pending = this.callbacks;
    this.callbacks = undefined;
    if (pending !== undefined) for (const callback of pending) callback();
  }

  /**
   * Abort with `parent` (at once if it already has). Returns the function that removes the
   * link — call it when the run ends so a long-lived parent signal does not keep the run alive.
   */
  follow(parent: AbortSignal | undefined): () => void {
    if (parent === undefined) return noop;
    if (parent.aborted) {
      this.abort(parent.reason);
      return noop;
    }
    const onAbort = () => this.abort(parent.reason);
    parent.addEventListener("abort", onAbort, { once: true });
    return () => parent.removeEventListener("abort", onAbort);
  }

  /** Call `callback` once when the hub aborts (at once if it already has); undo with `unwatch`. */
  watch(callback: () => void): void {
    if (this.isAborted) {
      callback();
      return;
    }
    this.callbacks ??= new Set();
    this.callbacks.add(callback);
  }

  unwatch(callback: () => void): void {
    this.callbacks?.delete(callback);
  }
}

/** What `follow` returns when there is nothing to unlink (callers may skip calling it). */
export function noop(): void {}
