import { describe, expect, it } from "vitest";
import { type HostTimers, TimerQueue } from "./timer-queue.js";

/** A fake host: one-shot timers we fire by hand, counting every set and clear. */
function fakeHost() {
  let now = 0;
  const armed = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const stats = { sets: 0, clears: 0 };
  const host: HostTimers = {
    set(fn, ms) {
      stats.sets++;
      const id = next++;
      armed.set(id, { at: now + ms, fn });
      return id;
    },
    clear(handle) {
      stats.clears++;
      armed.delete(handle as number);
    },
    now: () => now,
  };
  /** Move time to `t`, firing due host timers in order. */
  const runTo = (t: number) => {
    for (;;) {
      let first: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of armed)
        if (entry[1].at <= t && (first === undefined || entry[1].at < first[1].at)) first = entry;
      if (first === undefined) break;
      armed.delete(first[0]);
      now = first[1].at;
      first[1].fn();
    }
    now = t;
  };
  return { host, runTo, stats, armed };
}

describe("TimerQueue", () => {
  it("fires timers in due order (ties: first scheduled first) on one host timer", () => {
    const { host, runTo, armed } = fakeHost();
    const queue = new TimerQueue(host);
    const fired: string[] = [];
    queue.schedule(30, () => fired.push("c"));
    queue.schedule(10, () => fired.push("a"));
    queue.schedule(10, () => fired.push("b"));
    queue.schedule(20, () => fired.push("x"));
    expect(armed.size).toBe(1);
    runTo(15);
    expect(fired).toEqual(["a", "b"]);
    runTo(100);
    expect(fired).toEqual(["a", "b", "x", "c"]);
    expect(queue.size).toBe(0);
    expect(armed.size).toBe(0);
  });

  it("arming and cancelling many timers costs no host timer operations while one stays armed", () => {
    const { host, stats } = fakeHost();
    const queue = new TimerQueue(host);
    queue.schedule(1_000, () => {});
    const before = { ...stats };
    for (let i = 0; i < 10_000; i++) queue.schedule(120_000, () => {}).cancel();
    expect(stats).toEqual(before);
    expect(queue.size).toBe(1);
  });

  it("clears the host timer when the last live timer is cancelled (an idle process can exit)", () => {
    const { host, armed } = fakeHost();
    const queue = new TimerQueue(host);
    const a = queue.schedule(50, () => {});
    const b = queue.schedule(80, () => {});
    a.cancel();
    expect(armed.size).toBe(1);
    b.cancel();
    expect(armed.size).toBe(0);
    b.cancel();
    expect(queue.size).toBe(0);
  });

  it("a cancelled earliest timer does not fire; the next one fires at its own time", () => {
    const { host, runTo } = fakeHost();
    const queue = new TimerQueue(host);
    const fired: number[] = [];
    const first = queue.schedule(10, () => fired.push(10));
    queue.schedule(40, () => fired.push(40));
    first.cancel();
    runTo(39);
    expect(fired).toEqual([]);
    runTo(40);
    expect(fired).toEqual([40]);
  });

  it("compacts cancelled entries so the heap stays proportional to live timers", () => {
    const { host, runTo } = fakeHost();
    const queue = new TimerQueue(host);
    const fired: number[] = [];
    const keep = [5, 3, 9, 1, 7].map((ms) => queue.schedule(ms * 100, () => fired.push(ms)));
    const drop = Array.from({ length: 1_000 }, (_, i) => queue.schedule(50 + i, () => fired.push(-1)));
    for (const t of drop) t.cancel();
    expect(queue.size).toBe(keep.length);
    runTo(10_000);
    expect(fired).toEqual([1, 3, 5, 7, 9]);
  });

  it("Infinity never fires; negative and NaN mean 0; a throwing callback does not stop the others", () => {
    const { host, runTo } = fakeHost();
    const queue = new TimerQueue(host);
    const fired: string[] = [];
    queue.schedule(Number.POSITIVE_INFINITY, () => fired.push("never"));
    queue.schedule(-5, () => {
      throw new Error("boom");
    });
    queue.schedule(Number.NaN, () => fired.push("nan"));
    // The error is rethrown on a host timer of its own, after the other due callbacks ran.
    expect(() => runTo(0)).toThrow("boom");
    expect(fired).toEqual(["nan"]);
    runTo(1e12);
    expect(fired).toEqual(["nan"]);
  });

  it("a timer scheduled from a callback at the same moment fires in the same pass when due", () => {
    const { host, runTo } = fakeHost();
    const queue = new TimerQueue(host);
    const fired: string[] = [];
    queue.schedule(10, () => {
      fired.push("a");
      queue.schedule(0, () => fired.push("b"));
      queue.schedule(5, () => fired.push("c"));
    });
    runTo(10);
    expect(fired).toEqual(["a", "b"]);
    runTo(15);
    expect(fired).toEqual(["a", "b", "c"]);
  });

  it("parks the host timer (unref) when the last timer is cancelled, so sequential arm/cancel pairs set no new host timer", () => {
    const { host, runTo, stats, armed } = fakeHost();
    const refs: string[] = [];
    host.unref = (h) => refs.push(`unref ${String(h)}`);
    host.ref = (h) => refs.push(`ref ${String(h)}`);
    const queue = new TimerQueue(host);
    for (let i = 0; i < 100; i++) queue.schedule(120_000, () => {}).cancel(); // a run's tool timeouts
    expect(stats).toEqual({ sets: 1, clears: 0 });
    expect(refs.slice(0, 3)).toEqual(["unref 1", "ref 1", "unref 1"]);
    expect(refs.at(-1)).toBe("unref 1"); // idle: the parked timer no longer keeps the process alive
    // A timer due later than the parked one: the parked timer is ref'd and re-arms when it fires.
    runTo(1);
    let fired = 0;
    queue.schedule(120_000, () => fired++);
    expect(refs.at(-1)).toBe("ref 1");
    runTo(120_000);
    expect(fired).toBe(0);
    runTo(120_001);
    expect(fired).toBe(1);
    expect(armed.size).toBe(0);
    // A timer due earlier than the parked one is armed at once (no unref on that fresh timer).
    queue.schedule(50, () => {}).cancel();
    const parkedAt = stats.sets;
    queue.schedule(10, () => fired++);
    expect(stats.sets).toBe(parkedAt + 1);
    runTo(120_001 + 10);
    expect(fired).toBe(2);
  });
});
