/**
 * One abort listener per run, fanned out to cheap callbacks. `AbortSignal` listeners go through
 * Node's EventTarget, which costs microseconds per add/remove; the loop races every model call,
 * stream item and tool against cancellation, so it registers here instead.
 */
export class AbortHub {
  readonly signal: AbortSignal;
  private readonly callbacks = new Set<() => void>();

  constructor(signal: AbortSignal) {
    this.signal = signal;
    if (!signal.aborted) signal.addEventListener("abort", () => this.fire(), { once: true });
  }

  /** Call `callback` once when the signal aborts (at once if it already has); returns an unwatch function. */
  watch(callback: () => void): () => void {
    if (this.signal.aborted) {
      callback();
      return noop;
    }
    this.callbacks.add(callback);
    return () => {
      this.callbacks.delete(callback);
    };
  }

  private fire(): void {
    const pending = [...this.callbacks];
    this.callbacks.clear();
    for (const callback of pending) callback();
  }
}

function noop(): void {}
