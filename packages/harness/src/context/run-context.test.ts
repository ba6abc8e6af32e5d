import { describe, expect, it } from "vitest";
import type { RunContext } from "../contracts/run-context.js";
import { DEFAULT_RUN_LIMITS } from "../limits/run-limits.js";
import { contextFromOptions } from "../runtime/create-context.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { liveRunOf } from "./run-context.js";

const defaults = () => ({
  clock: new DeterministicClock(),
  ids: { next: (prefix: string) => `${prefix}-1` },
  limits: DEFAULT_RUN_LIMITS,
});

describe("liveRunOf: the harness's context behind a RunContext", () => {
  it("returns the context the runtime built (what ctx.run is in a tool or a hook)", () => {
    const live = contextFromOptions(defaults(), { runId: "run-a" }, { user: "u" });
    const seen: RunContext<{ user: string }> = live;
    expect(liveRunOf(seen)).toBe(live);
    expect(liveRunOf(seen)?.streamsDeltas).toBe(false);
  });

  it("returns undefined for a RunContext built by hand (a unit test's stand-in), which has no plumbing", () => {
    const live = contextFromOptions(defaults(), { runId: "run-b" }, undefined);
    // Every member of the interface, but not the harness's object: a spread copies the own fields only.
    const byHand = { ...live } as unknown as RunContext<undefined>;
    expect(liveRunOf(byHand)).toBeUndefined();
  });
});
