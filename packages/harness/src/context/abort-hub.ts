/**
 * The abort state of one run, with cheap fan-out and a lazily created `AbortSignal`.
 *
 * `AbortController`/`AbortSignal` go through Node's EventTarget: creating one and adding or
 * removing listeners costs microseconds and a few hundred bytes each. The loop checks and races
 * cancellation at every model call, stream item and tool, so it works against this hub instead;
 * a real `AbortSignal` is only built when someone reads `signal` (a tool, a provider adapter that
 * forwards it to `fetch`, a sub-agent), and then follows the hub.
 */
/**
 * Something told once when the run aborts: a callback, or an object whose `runAborted` is called
 * (a call in flight watches as itself: no closure per call).
 */
export type AbortWatcher = (() => void) | { runAborted(): void };

export class AbortHub {
  private isAborted = false;
  private abortReason: unknown;
  // Watchers: nearly always zero or one at a time (the current model call or tool), so the first
  // takes a slot and only concurrent ones need the array; adding and removing allocate nothing.
  private firstWatcher: AbortWatcher | undefined;
  private moreWatchers: AbortWatcher[] | undefined;
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
    const first = this.firstWatcher;
    const more = this.moreWatchers;
    this.firstWatcher = undefined;
    this.moreWatchers = undefined;
    if (first !== undefined) notify(first);
    if (more !== undefined) for (const watcher of more) notify(watcher);
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

  /** Tell `callback` once when the hub aborts (at once if it already has); undo with `unwatch`. */
  watch(callback: AbortWatcher): void {
    if (this.isAborted) {
      notify(callback);
      return;
    }
    // The slot only when no other watcher waits, so watchers are called in the order they came.
    const more = this.moreWatchers;
    if (this.firstWatcher === undefined && (more === undefined || more.length === 0)) {
      this.firstWatcher = callback;
    } else if (more === undefined) this.moreWatchers = [callback];
    else more.push(callback);
  }

  unwatch(callback: AbortWatcher): void {
    if (this.firstWatcher === callback) {
      this.firstWatcher = undefined;
      return;
    }
    const more = this.moreWatchers;
    if (more === undefined) return;
    const i = more.lastIndexOf(callback);
    if (i < 0) return;
    for (let j = i + 1; j < more.length; j++) more[j - 1] = more[j] as AbortWatcher;
    more.pop(); // not `length--`: a runtime call in V8
  }
}

function notify(watcher: AbortWatcher): void {
  if (typeof watcher === "function") watcher();
  else watcher.runAborted();
}

/** What `follow` returns when there is nothing to unlink (callers may skip calling it). */
export function noop(): void {}
