import { abortedError } from "@tinyagents/inference";

/**
 * Throws the error an abort means when `signal` is aborted: `cancelled` (or the harness's own
 * `TinyAgentsError` / `timeout` when that is the abort reason), naming `what` was interrupted.
 */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw abortedError(signal, what);
}

/**
 * Settles like `promise`, unless `signal` aborts first: then rejects with the abort error
 * (see {@link throwIfAborted}). The abort listener is removed when either settles.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortedError(signal, what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal, what));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/**
 * `clock.sleep(ms, signal)`, with an abort turned into the abort error instead of the raw
 * signal reason the Clock contract rejects with.
 */
export async function sleepOrAbort(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
  what: string,
): Promise<void> {
  throwIfAborted(signal, what);
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal, what);
    throw error;
  }
}
