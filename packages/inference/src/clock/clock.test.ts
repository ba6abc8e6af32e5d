import { describe, expect, it } from "vitest";
import { type Clock, startInterval, startTimer, systemClock } from "./clock.js";

/** A minimal hand-written clock without `setTimer`: sleeps resolve when `advance` passes them. */
function manualClock() {
  let now = 0;
  const sleeps: { at: number; resolve: () => void; reject: (e: unknown) => void }[] = [];
  const clock: Clock = {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        const entry = { at: now + ms, resolve, reject };
        sleeps.push(entry);
        signal?.addEventListener("abort", () => {
          sleeps.splice(sleeps.indexOf(entry), 1);
          reject(signal.reason);
        });
      });
    },
  };
  const advance = async (ms: number) => {
    now += ms;
    for (const s of sleeps.filter((e) => e.at <= now)) {
      sleeps.splice(sleeps.indexOf(s), 1);
      s.resolve();
    }
    await new Promise((r) => setImmediate(r));
  };
  return { clock, advance, sleeps };
}

describe("startTimer / startInterval", () => {
  it("falls back to an abortable sleep on a clock without setTimer; cancel stops it", async () => {
    const { clock, advance, sleeps } = manualClock();
    const fired: number[] = [];
    startTimer(clock, 20, () => fired.push(clock.now()));
    const cancelled = startTimer(clock, 30, () => fired.push(-1));
    await advance(19);
    expect(fired).toEqual([]);
    cancelled.cancel();
    await advance(1);
    expect(fired).toEqual([20]);
    await advance(100);
    expect(fired).toEqual([20]);
    expect(sleeps).toHaveLength(0);
  });

  it("startInterval beats every interval until cancelled, and validates the interval", async () => {
    const { clock, advance } = manualClock();
    const beats: number[] = [];
    const heartbeat = startInterval(clock, 10, () => beats.push(clock.now()));
    for (let i = 0; i < 5; i++) await advance(10);
    heartbeat.cancel();
    await advance(50);
    expect(beats).toEqual([10, 20, 30, 40, 50]);
    expect(() => startInterval(clock, 0, () => {})).toThrow(RangeError);
  });

  it("systemClock.sleep(Infinity) waits for the signal only (setTimeout would fire it at once)", async () => {
    const controller = new AbortController();
    let settled = "";
    const sleeping = systemClock.sleep(Number.POSITIVE_INFINITY, controller.signal).then(
      () => {
        settled = "woke";
      },
      () => {
        settled = "aborted";
      },
    );
    await new Promise((r) => setImmediate(r)); // a full event-loop turn: timers and I/O ran
    expect(settled).toBe("");
    controller.abort();
    await sleeping;
    expect(settled).toBe("aborted");
  });

  it("systemClock timers fire and cancel through the shared queue", async () => {
    const fired: string[] = [];
    const cancelled = systemClock.setTimer?.(1, () => fired.push("cancelled"));
    cancelled?.cancel();
    await new Promise<void>((resolve) => {
      systemClock.setTimer?.(2, () => {
        fired.push("fired");
        resolve();
      });
    });
    expect(fired).toEqual(["fired"]);
  });
});
