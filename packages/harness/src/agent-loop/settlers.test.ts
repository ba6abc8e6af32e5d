import { describe, expect, it } from "vitest";
import { type ReactionTarget, RunReactions } from "./settlers.js";

const recorder = (got: string[], name: string): ReactionTarget => ({
  settledWith: (value) => got.push(`${name}:${String(value)}`),
  failedWith: (error) => got.push(`${name}!${String(error)}`),
});

/** Resolves once every promise job queued so far has run (no timer). */
const drained = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("RunReactions", () => {
  it("delivers each settlement to the call whose promise it is, one call after another", async () => {
    const got: string[] = [];
    const reactions = new RunReactions();
    reactions.watch(Promise.resolve("a"), recorder(got, "A"));
    await drained();
    reactions.watch(Promise.reject(new Error("b")), recorder(got, "B"));
    await drained();
    expect(got).toEqual(["A:a", "B!Error: b"]);
  });

  it("a call watched while another is pending gets its own reactions", async () => {
    const got: string[] = [];
    const reactions = new RunReactions();
    let resolveA: (value: string) => void = () => {};
    reactions.watch(new Promise<string>((resolve) => (resolveA = resolve)), recorder(got, "A"));
    reactions.watch(Promise.resolve("b"), recorder(got, "B"));
    await drained();
    resolveA("a");
    await drained();
    expect(got).toEqual(["B:b", "A:a"]);
  });

  it("a native promise whose own then calls back twice never reaches the next call", async () => {
    const got: string[] = [];
    const reactions = new RunReactions();
    let callBackAgain: ((value: unknown) => void) | undefined;
    const twice = Promise.resolve("a1");
    // A provider's promise with a replaced `then` (Promise.resolve does not wrap a native promise).
    // biome-ignore lint/suspicious/noThenProperty: the misbehaving provider promise under test
    Object.defineProperty(twice, "then", {
      value: (onFulfilled: (value: unknown) => void) => {
        onFulfilled("a1");
        callBackAgain = onFulfilled;
        return twice;
      },
    });
    reactions.watch(twice, recorder(got, "A"));
    let resolveB: (value: string) => void = () => {};
    reactions.watch(new Promise<string>((resolve) => (resolveB = resolve)), recorder(got, "B"));
    callBackAgain?.("a2"); // the stale second call-back, while B is in flight
    resolveB("b");
    await drained();
    expect(got.filter((entry) => entry.startsWith("B"))).toEqual(["B:b"]);
  });
});
