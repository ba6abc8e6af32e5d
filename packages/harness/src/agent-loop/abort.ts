import { TinyAgentsError } from "@tinyagents/inference";
import { cancelled } from "../errors/factories.js";

/** The error a run sees when its signal aborts: the signal's reason if it is ours, else `cancelled`. */
export function abortError(signal: AbortSignal, where: string): TinyAgentsError {
  const reason: unknown = signal.reason;
  return TinyAgentsError.isInstance(reason) ? reason : cancelled(where, reason);
}

/** Throw when the signal has aborted. */
export function throwIfAborted(signal: AbortSignal, where: string): void {
  if (signal.aborted) throw abortError(signal, where);
}

/**
 * Settle with `promise`, or reject as soon as `signal` aborts. The listener is removed when
 * either happens, so nothing outlives the race.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, where: string): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortError(signal, where));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal, where));
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
 * A child AbortController that aborts when `parent` does, and optionally after `timeoutMs` of
 * real time with `onTimeout()` as the reason. Call `dispose()` when done: it clears the timer
 * and the parent listener.
 */
export function linkedController(
  parent: AbortSignal,
  timeoutMs?: number,
  onTimeout?: () => unknown,
): { signal: AbortSignal; controller: AbortController; dispose: () => void } {
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener("abort", onParentAbort, { once: true });
  const timer =
    timeoutMs === undefined ? undefined : setTimeout(() => controller.abort(onTimeout?.()), Math.max(0, timeoutMs));
  return {
    signal: controller.signal,
    controller,
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
      parent.removeEventListener("abort", onParentAbort);
    },
  };
}
