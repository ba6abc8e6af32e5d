import { type Usage, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { CostTotals } from "../contracts/cost-totals.js";
import { CallBilling, type ModelAttemptEnd } from "./call-billing.js";

const tokens = (input: number, output: number): Usage => usage({ inputTokens: input, outputTokens: output });
const cost = (total: number): CostTotals => ({
  currency: "USD",
  input: total,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  total,
});

function completed(callId: string, extra: Partial<Extract<ModelAttemptEnd, { type: "model.completed" }>>) {
  return {
    type: "model.completed",
    callId,
    model: "m",
    durationMs: 1,
    toolCalls: 0,
    servedFromCache: false,
    ...extra,
  } as const satisfies ModelAttemptEnd;
}

function failed(callId: string, extra: Partial<Extract<ModelAttemptEnd, { type: "model.failed" }>>) {
  return {
    type: "model.failed",
    callId,
    model: "m",
    durationMs: 1,
    attempt: 1,
    error: { name: "TinyAgentsError", code: "provider", message: "broke" },
    ...extra,
  } as const satisfies ModelAttemptEnd;
}

describe("CallBilling", () => {
  it("a record that never reached its attempt's end does not hide the next attempt's billing", () => {
    const billing = new CallBilling();
    // An "all" epoch that crashed after the attempt's records, before its end.
    billing.usageRecorded("c1");
    billing.costRecorded("c1");
    // The call is taken again: its next attempt's end, in an "essential" journal, carries its billing.
    billing.attemptStarted("c1");
    const end = completed("c1", { usage: tokens(3, 1), cost: cost(5) });
    expect(billing.usageOf(end)).toEqual(tokens(3, 1));
    expect(billing.costOf(end)).toEqual(cost(5));
  });

  it("attemptEnded: what each attempt adds, and whether its own cost is unknown", () => {
    const billing = new CallBilling();
    // Separate records ("all"): the end adds nothing more, the attempt was priced.
    billing.attemptStarted("c1");
    billing.usageRecorded("c1");
    billing.costRecorded("c1");
    expect(billing.attemptEnded(completed("c1", { usage: tokens(1, 1), cost: cost(3) }))).toEqual({
      usage: undefined,
      cost: undefined,
      costUnknown: false,
    });
    // A later attempt of the same call on an unpriced model: its cost is unknown, whatever the
    // earlier attempt cost.
    billing.attemptStarted("c1");
    billing.usageRecorded("c1");
    expect(billing.attemptEnded(completed("c1", { usage: tokens(2, 1) })).costUnknown).toBe(true);
    // An "essential" end carrying usage without cost: unknown; with cost: known.
    expect(billing.attemptEnded(completed("c2", { usage: tokens(2, 1) }))).toEqual({
      usage: tokens(2, 1),
      cost: undefined,
      costUnknown: true,
    });
    expect(billing.attemptEnded(completed("c3", { usage: tokens(2, 1), cost: cost(4) })).costUnknown).toBe(
      false,
    );
    // A cache hit is free: nothing added, nothing unknown. An answer without usage: unknown.
    expect(billing.attemptEnded(completed("c4", { usage: tokens(2, 1), servedFromCache: true }))).toEqual({
      usage: undefined,
      cost: undefined,
      costUnknown: false,
    });
    expect(billing.attemptEnded(completed("c5", {})).costUnknown).toBe(true);
    // A refused attempt billed nothing; one cut off after the provider may have billed it is unknown.
    expect(billing.attemptEnded(failed("c6", {})).costUnknown).toBe(false);
    expect(billing.attemptEnded(failed("c7", { usageUnknown: true })).costUnknown).toBe(true);
  });
});
