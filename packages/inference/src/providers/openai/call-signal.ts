/** A per-call abort signal: the caller's signal plus an optional timeout. */
export interface CallSignal {
  signal: AbortSignal | undefined;
  /** Clears the timeout timer. Call in a `finally`. */
  dispose(): void;
}

/**
 * Combine the caller's `signal` with `timeoutMs` (from `ModelRequest.timeoutMs`). When the
 * timeout fires the signal aborts with a `TimeoutError` reason, which `abortedError` turns into
 * a `timeout` error. The timer and the link to the caller's signal are removed by `dispose()`,
 * so nothing outlives the call.
 *
 * The caller's signal is never handed to `fetch` itself: the platform fetch (undici) adds an
 * abort listener to the signal it gets and never removes it, so a long-lived caller signal would
 * collect one listener per call. Each call gets its own child signal instead.
 */
export function callSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): CallSignal {
  const timed = timeoutMs !== undefined && timeoutMs > 0;
  if (!timed && signal === undefined) return { signal, dispose: () => undefined };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal !== undefined) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  const timer = timed
    ? setTimeout(() => {
        controller.abort(new DOMException(`The model call timed out after ${timeoutMs} ms`, "TimeoutError"));
      }, timeoutMs)
    : undefined;
  return {
    signal: controller.signal,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
