/** A per-call abort signal: the caller's signal plus an optional timeout. */
export interface CallSignal {
  signal: AbortSignal | undefined;
  /** Clears the timeout timer. Call in a `finally`. */
  dispose(): void;
}

/**
 * Combine the caller's `signal` with `timeoutMs` (from `ModelRequest.timeoutMs`). When the
 * timeout fires the signal aborts with a `TimeoutError` reason, which `abortedError` turns into
 * a `timeout` error. The timer is cleared by `dispose()`, so nothing outlives the call.
 */
export function callSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): CallSignal {
  if (timeoutMs === undefined || !(timeoutMs > 0)) return { signal, dispose: () => undefined };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  if (signal !== undefined) {
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`The model call timed out after ${timeoutMs} ms`, "TimeoutError"));
  }, timeoutMs);
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    },
  };
}
