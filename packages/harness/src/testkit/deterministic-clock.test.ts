import { startInterval } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { DEFAULT_CLOCK_START, DeterministicClock } from "./deterministic-clock.js";

describe("DeterministicClock", () => {
  it("starts at a realistic epoch by default, or at the given start", () => {
    expect(new DeterministicClock().now()).toBe(DEFAULT_CLOCK_START);
    expect(new DeterministicClock({ start: 0 }).now()).toBe(0);
  });

  it("sleeps instantly in real time while advancing virtual time by the duration", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const realStart = performance.now();
    await clock.sleep(3_600_000);
    await clock.sleep(500);
    expect(performance.now() - realStart).toBeLessThan(1000);
    expect(clock.now()).toBe(3_600_500);
    expect(clock.sleeps).toEqual([3_600_000, 500]);
  });

  it("wakes concurrent sleeps in wake-time order, like real time", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const woke: string[] = [];
    const long = clock.sleep(500).then(() => woke.push(`long@${clock.now()}`));
    const short = clock.sleep(10).then(() => woke.push(`short@${clock.now()}`));
    await Promise.all([long, short]);
    expect(woke).toEqual(["short@10", "long@500"]);
  });

  it("overlaps concurrent sleeps instead of adding them up", async () => {
    const clock = new DeterministicClock({ start: 0 });
    await Promise.all([clock.sleep(100), clock.sleep(100), clock.sleep(100)]);
    expect(clock.now()).toBe(100);
  });

  it("lets a sleep started after an earlier wake-up run from the new time", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const order: number[] = [];
    const chain = clock.sleep(50).then(async () => {
      await clock.sleep(20);
      order.push(clock.now());
    });
    const other = clock.sleep(100).then(() => order.push(clock.now()));
    await Promise.all([chain, other]);
    expect(order).toEqual([70, 100]);
  });

  it("rejects with the signal's reason when already aborted, without advancing time", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(clock.sleep(100, controller.signal)).rejects.toThrow("stop");
    expect(clock.now()).toBe(0);
    expect(clock.sleeps).toEqual([100]);
  });

  it("rejects when aborted during the sleep, and the sleep never fires", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error("cancel"));
    await expect(sleeping).rejects.toThrow("cancel");
    expect(clock.pendingSleeps).toBe(0);
    expect(clock.now()).toBe(0);
  });

  it("lets a short timer abort a longer sleep in a race", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const work = clock.sleep(10_000, controller.signal).then(() => "work");
    const timeout = clock.sleep(1000).then(() => {
      controller.abort(new Error("timed out"));
      return "timeout";
    });
    await expect(Promise.race([work, timeout])).resolves.toBe("timeout");
    await expect(work).rejects.toThrow("timed out");
    expect(clock.now()).toBe(1000);
  });

  it("with autoAdvance off, fires sleeps only through advance()", async () => {
    const clock = new DeterministicClock({ start: 0, autoAdvance: false });
    let done = false;
    const sleeping = clock.sleep(100).then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    clock.advance(99);
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1);
    await sleeping;
    expect(done).toBe(true);
    expect(clock.now()).toBe(100);
  });

  it("advance() moves time and rejects bad input", () => {
    const clock = new DeterministicClock({ start: 5 });
    clock.advance(10);
    expect(clock.now()).toBe(15);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.NaN)).toThrow(/finite/);
  });

  it("never wakes an infinite sleep by itself, but aborts it", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const forever = clock.sleep(Number.POSITIVE_INFINITY, controller.signal);
    await clock.sleep(10);
    expect(clock.pendingSleeps).toBe(1);
    controller.abort(new Error("enough"));
    await expect(forever).rejects.toThrow("enough");
    expect(clock.now()).toBe(10);
  });

  it("treats negative durations as zero", async () => {
    const clock = new DeterministicClock({ start: 0 });
    await clock.sleep(-5);
    expect(clock.now()).toBe(0);
  });

  describe("timers (setTimer): passive, fired on the way while work sleeps", () => {
    it("a timer due before a pending sleep fires at its own virtual time", async () => {
      const clock = new DeterministicClock({ start: 0 });
      const fired: number[] = [];
      clock.setTimer(20, () => fired.push(clock.now()));
      await clock.sleep(50);
      expect(fired).toEqual([20]);
      expect(clock.now()).toBe(50);
      expect(clock.pendingTimers).toBe(0);
    });

    it("a timer alone does not move time (nothing sleeps on the clock); advance() fires it", () => {
      const clock = new DeterministicClock({ start: 0 });
      const fired: number[] = [];
      clock.setTimer(120_000, () => fired.push(clock.now()));
      return new Promise<void>((resolve) => {
        setImmediate(() =>
          setImmediate(() => {
            expect(fired).toEqual([]);
            expect(clock.pendingTimers).toBe(1);
            clock.advance(120_000);
            expect(fired).toEqual([120_000]);
            resolve();
          }),
        );
      });
    });

    it("work waiting forever (sleep(Infinity)) lets timers fire: a timeout can cut it", async () => {
      const clock = new DeterministicClock({ start: 0 });
      const controller = new AbortController();
      const forever = clock.sleep(Number.POSITIVE_INFINITY, controller.signal);
      clock.setTimer(1_500, () => controller.abort(new Error("timed out")));
      await expect(forever).rejects.toThrow("timed out");
      expect(clock.now()).toBe(1_500);
    });

    it("a cancelled timer never fires, and timers are not logged as sleeps", async () => {
      const clock = new DeterministicClock({ start: 0 });
      const fired: number[] = [];
      clock.setTimer(10, () => fired.push(10)).cancel();
      clock.setTimer(30, () => fired.push(30));
      await clock.sleep(100);
      expect(fired).toEqual([30]);
      expect(clock.sleeps).toEqual([100]);
    });

    it("a heartbeat (startInterval) beats on virtual time during a long sleep", async () => {
      const clock = new DeterministicClock({ start: 0 });
      const beats: number[] = [];
      const heartbeat = startInterval(clock, 1_000, () => beats.push(clock.now()));
      await clock.sleep(3_500);
      heartbeat.cancel();
      expect(beats).toEqual([1_000, 2_000, 3_000]);
      expect(clock.pendingTimers).toBe(0);
    });
  });
});
