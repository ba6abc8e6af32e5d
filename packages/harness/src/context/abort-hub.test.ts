import { describe, expect, it } from "vitest";
import { AbortHub } from "./abort-hub.js";

describe("AbortHub", () => {
  it("aborts a signal created before the abort, with the reason", () => {
    const hub = new AbortHub();
    const signal = hub.signal;
    expect(signal.aborted).toBe(false);
    hub.abort("bye");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("bye");
    expect(hub.reason).toBe("bye");
  });

  it("hands out an already-aborted signal after the abort", () => {
    const hub = new AbortHub();
    hub.abort("late");
    expect(hub.signal.aborted).toBe(true);
    expect(hub.signal.reason).toBe("late");
  });

  it("uses a DOM AbortError when no reason is given, like AbortController", () => {
    const hub = new AbortHub();
    hub.abort();
    expect((hub.reason as DOMException).name).toBe("AbortError");
  });

  it("calls each watcher once, in order; unwatched ones and later aborts do nothing", () => {
    const hub = new AbortHub();
    const calls: string[] = [];
    const a = () => calls.push("a");
    const b = () => calls.push("b");
    const c = () => calls.push("c");
    hub.watch(a);
    hub.watch(b);
    hub.watch(c);
    hub.unwatch(b);
    hub.abort("x");
    hub.abort("y");
    expect(calls).toEqual(["a", "c"]);
    expect(hub.reason).toBe("x");
    hub.watch(() => calls.push("late"));
    expect(calls).toEqual(["a", "c", "late"]);
  });

  it("tells watcher objects through runAborted, in order with callbacks, and unwatches them by identity", () => {
    const hub = new AbortHub();
    const calls: string[] = [];
    const call = { runAborted: () => calls.push("call") };
    const gone = { runAborted: () => calls.push("gone") };
    hub.watch(call);
    hub.watch(() => calls.push("fn"));
    hub.watch(gone);
    hub.unwatch(gone);
    hub.abort("x");
    expect(calls).toEqual(["call", "fn"]);
    hub.watch({ runAborted: () => calls.push("late") });
    expect(calls).toEqual(["call", "fn", "late"]);
  });

  it("follows a parent signal until unlinked", () => {
    const parent = new AbortController();
    const hub = new AbortHub();
    const unlink = hub.follow(parent.signal);
    parent.abort("parent stopped");
    expect(hub.aborted).toBe(true);
    expect(hub.reason).toBe("parent stopped");
    unlink();

    const other = new AbortController();
    const detached = new AbortHub();
    detached.follow(other.signal)();
    other.abort();
    expect(detached.aborted).toBe(false);
  });

  it("follows an already-aborted parent at once", () => {
    const hub = new AbortHub();
    hub.follow(AbortSignal.abort("gone"));
    expect(hub.aborted).toBe(true);
    expect(hub.reason).toBe("gone");
  });
});
