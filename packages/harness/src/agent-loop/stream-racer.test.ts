import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { AbortHub } from "../context/abort-hub.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { StreamRacer } from "./stream-racer.js";

/** An iterator whose reads never settle (a stalled stream that ignores cancellation). */
function stalled(): AsyncIterator<string> {
  return { next: () => new Promise<IteratorResult<string>>(() => {}) };
}

async function* items(...values: string[]): AsyncGenerator<string> {
  for (const value of values) yield value;
}

describe("StreamRacer", () => {
  it("reads every item in order, then done", async () => {
    const hub = new AbortHub();
    const reader = new StreamRacer(items("a", "b", "c"), hub, "while testing");
    const seen: string[] = [];
    for (let next = await reader.next(); !next.done; next = await reader.next()) seen.push(next.value);
    reader.dispose();
    expect(seen).toEqual(["a", "b", "c"]);
  });

  it("rejects a pending read when the run aborts, and every later read too", async () => {
    const hub = new AbortHub();
    const reader = new StreamRacer(stalled(), hub, "while testing");
    const pending = reader.next();
    hub.abort(new TinyAgentsError("cancelled", "stop now"));
    await expect(pending).rejects.toMatchObject({ code: "cancelled", message: "stop now" });
    await expect(reader.next()).rejects.toMatchObject({ code: "cancelled" });
    reader.dispose();
  });

  it("turns a foreign abort reason into a cancelled error naming where", async () => {
    const hub = new AbortHub();
    hub.abort();
    const reader = new StreamRacer(stalled(), hub, "while testing");
    const error = await reader.next().catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error) && error.code).toBe("cancelled");
    expect(String((error as Error).message)).toContain("while testing");
  });

  it("bounds the whole stream with one timeout on the given clock", async () => {
    const hub = new AbortHub();
    const clock = new DeterministicClock({ autoAdvance: false });
    const reader = new StreamRacer(
      stalled(),
      hub,
      "while testing",
      20,
      () => new TinyAgentsError("timeout", "too slow"),
      clock,
    );
    const first = reader.next();
    clock.advance(19);
    let settled = false;
    first
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(first).rejects.toMatchObject({ code: "timeout", message: "too slow" });
    await expect(reader.next()).rejects.toMatchObject({ code: "timeout" });
    reader.dispose();
  });

  it("surfaces the iterator's own error", async () => {
    const hub = new AbortHub();
    const failing: AsyncIterator<string> = { next: () => Promise.reject(new Error("socket closed")) };
    const reader = new StreamRacer(failing, hub, "while testing");
    await expect(reader.next()).rejects.toThrow("socket closed");
    reader.dispose();
  });

  it("stops watching the run once disposed", async () => {
    const hub = new AbortHub();
    const reader = new StreamRacer(items("a"), hub, "while testing");
    await reader.next();
    reader.dispose();
    hub.abort();
    // Disposed before the abort: the next read goes to the iterator (done), not the abort error.
    await expect(reader.next()).resolves.toMatchObject({ done: true });
  });
});
