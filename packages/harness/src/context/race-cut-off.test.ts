import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { race } from "./abort.js";
import { AbortHub } from "./abort-hub.js";

// `race`'s `onCutOff`: told when the run's abort or the timeout abandons a promise still pending
// (a provider call that may have been billed), and only then.

/** A promise settled by hand, and a counter of `onCutOff` calls. */
function setup() {
  let settle!: (value: string) => void;
  const pending = new Promise<string>((resolve) => {
    settle = resolve;
  });
  const cutOffs: string[] = [];
  return { pending, settle, cutOffs, onCutOff: () => cutOffs.push("cut") };
}

describe("race onCutOff", () => {
  it("the run aborts while the promise is pending: called once, before the race rejects", async () => {
    const hub = new AbortHub();
    const { pending, cutOffs, onCutOff } = setup();
    const raced = race(pending, { hub, where: "during a test", onCutOff });
    hub.abort();
    expect(cutOffs).toEqual(["cut"]);
    await expect(raced).rejects.toMatchObject({ code: "cancelled" });
    expect(cutOffs).toEqual(["cut"]);
  });

  it("the timeout passes while the promise is pending: called once; a later abort adds nothing", async () => {
    const hub = new AbortHub();
    const clock = new DeterministicClock({ start: 0, autoAdvance: false });
    const { pending, cutOffs, onCutOff } = setup();
    const onTimeout = () => new TinyAgentsError("timeout", "too slow");
    const raced = race(pending, {
      hub,
      where: "during a test",
      clock,
      timeoutMs: 20,
      graceMs: 10,
      onTimeout,
      onCutOff,
    });
    clock.advance(19);
    expect(cutOffs).toEqual([]);
    clock.advance(1);
    expect(cutOffs).toEqual(["cut"]);
    hub.abort(); // during the grace
    await expect(raced).rejects.toMatchObject({ code: "cancelled" });
    expect(cutOffs).toEqual(["cut"]);
  });

  it("the promise settled first, or the run had aborted before the race began: not called", async () => {
    const hub = new AbortHub();
    const clock = new DeterministicClock({ start: 0, autoAdvance: false });
    const { pending, settle, cutOffs, onCutOff } = setup();
    const raced = race(pending, { hub, where: "during a test", clock, timeoutMs: 20, onCutOff });
    settle("answer");
    await expect(raced).resolves.toBe("answer");
    hub.abort();
    clock.advance(50);
    const late = setup();
    await expect(race(late.pending, { hub, where: "during a test", onCutOff })).rejects.toMatchObject({
      code: "cancelled",
    });
    expect(cutOffs).toEqual([]);
  });
});
