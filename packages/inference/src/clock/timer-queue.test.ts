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

/** `fakeHost` with `defer` (the end of the host turn, fired by hand) and a count of clock reads. */
function deferringHost() {
  const fake = fakeHost();
  const deferred: (() => void)[] = [];
  const reads = { now: 0 };
  const now = fake.host.now;
  fake.host.now = () => {
    reads.now++;
    return now();
  };
  fake.host.defer = (callback) => {
    deferred.push(callback);
    return deferred.length;
  };
  /** The host turn ends: run the deferred callbacks. */
  const endTurn = () => {
    for (const callback of deferred.splice(0)) callback();
  };
  return { ...fake, reads, deferred, endTurn };
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

  it("with defer, a timer set and cancelled within one host turn reads no clock and touches no host timer", () => {
    const { host, stats, reads, deferred, endTurn, armed } = deferringHost();
    const queue = new TimerQueue(host);
    for (let i = 0; i < 100; i++) queue.schedule(120_000, () => {}).cancel(); // a run's tool timeouts
    expect(queue.size).toBe(0);
    expect(deferred).toHaveLength(1); // one end-of-turn pass for the whole turn
    expect(reads.now).toBe(0);
    endTurn();
    expect(reads.now).toBe(0); // nothing was live any more: no read
    expect(stats).toEqual({ sets: 0, clears: 0 });
    expect(armed.size).toBe(0);
  });

  it("with defer, the pending end-of-turn pass keeps the process alive only while a timer waits for it", () => {
    const { host } = deferringHost();
    const refs: string[] = [];
    host.unref = (h) => refs.push(`unref ${String(h)}`);
    host.ref = (h) => refs.push(`ref ${String(h)}`);
    const queue = new TimerQueue(host);
    const a = queue.schedule(1_000, () => {});
    const b = queue.schedule(2_000, () => {});
    a.cancel();
    expect(refs).toEqual([]); // b still waits for the pass
    b.cancel();
    expect(refs).toEqual(["unref 1"]); // nothing live: an idle process may exit
    queue.schedule(3_000, () => {});
    expect(refs).toEqual(["unref 1", "ref 1"]); // the same pending pass, needed again
  });

  it("with defer, a timer still live at the end of its turn counts its delay from then: never early", () => {
    const { host, runTo, reads, endTurn } = deferringHost();
    const queue = new TimerQueue(host);
    const fired: string[] = [];
    queue.schedule(30, () => fired.push("c"));
    const dropped = queue.schedule(5, () => fired.push("dropped"));
    queue.schedule(10, () => fired.push("a"));
    queue.schedule(10, () => fired.push("b"));
    dropped.cancel();
    expect(queue.size).toBe(3);
    runTo(4); // the rest of the turn took 4 ms
    endTurn();
    expect(reads.now).toBe(2); // the turn's one read, then arming the host timer
    runTo(13);
    expect(fired).toEqual([]); // due at 14 (4 + 10), not at 10
    runTo(14);
    expect(fired).toEqual(["a", "b"]);
    runTo(34);
    expect(fired).toEqual(["a", "b", "c"]);
    expect(queue.size).toBe(0);
  });

  it("with defer, timers cancelled out of order within a turn are dropped; the live ones still fire", () => {
    const { host, runTo, endTurn } = deferringHost();
    const queue = new TimerQueue(host);
    const fired: number[] = [];
    const timers = Array.from({ length: 1_000 }, (_, i) => queue.schedule(100 + i, () => fired.push(i)));
    // Every one but each 100th, oldest first (not the last-in-first-out order of nested calls).
    timers.forEach((t, i) => {
      if (i % 100 !== 0) t.cancel();
    });
    expect(queue.size).toBe(10);
    endTurn();
    runTo(10_000);
    expect(fired).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900]);
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
