import { type Timer, TimerQueue } from "./timer-queue.js";

/**
 * Time, injected. Everything that reads the time or waits goes through a Clock, so tests with a
 * deterministic clock never wait and always see the same timestamps.
 *
 * Two ways to wait: `sleep` is work waiting for time (a backoff, a simulated latency), and
 * `setTimer` is a limit watching time pass (a deadline, a timeout, a heartbeat). A virtual
 * clock may treat them differently — `DeterministicClock` moves time forward only for sleeps
 * and fires timers on the way — so both exist. A clock without `setTimer` still works
 * everywhere: {@link startTimer} falls back to an abortable `sleep`.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Wait `ms` milliseconds; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Call `callback` once, `ms` milliseconds from now, unless cancelled first (negative or NaN:
   * 0; `Infinity`: never). Optional: see {@link startTimer}.
   */
  setTimer?(ms: number, callback: () => void): Timer;
}

// One timer structure for every run on the system clock (see TimerQueue).
const systemTimers = new TimerQueue({
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  now: () => performance.now(),
  // Node's Timeout objects; elsewhere (a number handle, no process to keep alive) a no-op.
  unref: (handle) => (handle as { unref?: () => void }).unref?.(),
  ref: (handle) => (handle as { ref?: () => void }).ref?.(),
  // Where the host has `setImmediate` (Node, Bun): new timers read the time once per turn, so a
  // tool call's timeout armed and cancelled within the turn costs no clock read (see `defer`).
  ...(typeof setImmediate === "function"
    ? {
        defer: (callback: () => void) => setImmediate(callback),
      }
    : {}),
});

/**
 * The real clock: `Date.now()`, and sleeps and timers on one shared {@link TimerQueue} (one host
 * `setTimeout` for all of them), sleeps with abort support. Nothing leaks: a cancelled timer or
 * an aborted sleep leaves no host timer behind once nothing else is scheduled.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep(ms, signal) {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      // On the shared queue too: `Infinity` waits for the signal only, and waits past
      // `setTimeout`'s 2^31 ms limit are re-armed rather than firing at once.
      const onAbort = () => {
        timer.cancel();
        reject(signal?.reason);
      };
      const timer = systemTimers.schedule(ms, () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
  setTimer: (ms, callback) => systemTimers.schedule(ms, callback),
};

/**
 * Schedule `callback` on `clock`, `ms` from now: through `clock.setTimer` when the clock has
 * one, otherwise as an abortable `clock.sleep` (so a wrapped or hand-written clock still drives
 * every deadline and timeout). Returns the handle that cancels it.
 */
export function startTimer(clock: Clock, ms: number, callback: () => void): Timer {
  if (clock.setTimer !== undefined) return clock.setTimer(ms, callback);
  const controller = new AbortController();
  clock.sleep(ms, controller.signal).then(
    () => {
      if (!controller.signal.aborted) callback();
    },
    () => {},
  );
  return { cancel: () => controller.abort() };
}

/**
 * Call `callback` every `intervalMs` on `clock` (a heartbeat) until the returned handle is
 * cancelled. Each beat is scheduled when the previous one fired, so beats never pile up.
 * Throws `RangeError` unless `intervalMs` is a finite number > 0.
 */
export function startInterval(clock: Clock, intervalMs: number, callback: () => void): Timer {
  if (typeof intervalMs !== "number" || !Number.isFinite(intervalMs) || intervalMs <= 0) {
    throw new RangeError(`startInterval: intervalMs must be a finite number > 0, got ${String(intervalMs)}`);
  }
  let current: Timer | undefined;
  let stopped = false;
  const beat = (): void => {
    if (stopped) return;
    current = startTimer(clock, intervalMs, beat);
    callback();
  };
  current = startTimer(clock, intervalMs, beat);
  return {
    cancel: () => {
      stopped = true;
      current?.cancel();
    },
  };
}
