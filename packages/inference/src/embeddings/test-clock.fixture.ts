import type { Clock } from "../clock/clock.js";

/** A clock whose `sleep` returns at once, recording the requested waits and advancing `now`. */
export function recordingClock(): Clock & { sleeps: number[] } {
  let now = Date.parse("2025-01-01T00:00:00Z");
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
    },
  };
}
