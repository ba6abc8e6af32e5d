import { TinyAgentsError, type Usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import type { AttemptInfo } from "./attempt-info.js";
import { OpenCalls } from "./open-calls.js";

function sink() {
  const events: AgentEvent[] = [];
  return {
    events,
    ctx: { clock: new DeterministicClock({ start: 1000 }), emit: (e: AgentEvent) => events.push(e) },
  };
}

describe("OpenCalls", () => {
  it("closes each tool call once, in any order", () => {
    const open = new OpenCalls();
    open.toolStarted("a", "t", 1);
    open.toolStarted("b", "t", 2);
    open.toolStarted("c", "t", 3);
    expect(open.size).toBe(3);
    expect(open.closeTool("b")).toBe(true);
    expect(open.closeTool("b")).toBe(false);
    expect(open.isToolOpen("b")).toBe(false);
    expect(open.isToolOpen("a")).toBe(true);
    expect(open.closeTool("c")).toBe(true);
    expect(open.closeTool("a")).toBe(true);
    expect(open.size).toBe(0);
    expect(open.closeTool("zzz")).toBe(false);
  });

  it("closeAll fails what is still open, models first, tools in start order, then nothing is open", () => {
    const open = new OpenCalls();
    const { events, ctx } = sink();
    open.toolStarted("a", "first", 990);
    open.toolStarted("b", "second", 995);
    open.toolStarted("a", "restarted", 996); // a restarted id replaces its entry, keeps its place
    const model = open.modelStarted({ callId: "m-1", attempt: 1, emittedDeltas: false }, "m", 980);
    open.toolStarted("c", "third", 999);
    open.closeTool("b");
    const closed: string[] = [];
    open.closeAll(ctx, new TinyAgentsError("cancelled", "stop"), (id) => closed.push(id));
    expect(
      events.map((e) => [e.type, "callId" in e ? e.callId : "", "durationMs" in e ? e.durationMs : 0]),
    ).toEqual([
      ["model.failed", "m-1", 20],
      ["tool.failed", "a", 4],
      ["tool.failed", "c", 1],
    ]);
    expect(events.map((e) => ("toolName" in e ? e.toolName : ""))).toEqual(["", "restarted", "third"]);
    expect(closed).toEqual(["a", "c"]);
    expect(open.size).toBe(0);
    expect(open.closeTool("a")).toBe(false);
    expect(open.closeModel(model)).toBe(false);
  });

  it("closeAll settles an attempt's pending billing before its model.failed, which carries it", () => {
    const open = new OpenCalls();
    const { events, ctx } = sink();
    const info: AttemptInfo = { callId: "m-1", attempt: 2, emittedDeltas: false };
    const settledWith: string[] = [];
    info.streamBilling = {
      answered: () => settledWith.push("answered"),
      // What a stream cut off after its usage chunk folds: its usage, its cost, the rest unknown.
      settle: (runError) => {
        settledWith.push(runError.code);
        ctx.emit({ type: "usage.recorded", callId: "m-1", model: "m", usage: usage(10, 2) });
        info.billedUsage = usage(10, 2);
        info.billedCost = cost12;
        info.usageUnknown = true;
      },
    };
    open.modelStarted(info, "m", 990);
    open.closeAll(ctx, new TinyAgentsError("provider", "a wrap gave up"));
    expect(settledWith).toEqual(["provider"]);
    expect(events.map((e) => e.type)).toEqual(["usage.recorded", "model.failed"]);
    expect(events[1]).toMatchObject({
      type: "model.failed",
      callId: "m-1",
      attempt: 2,
      durationMs: 10,
      usage: usage(10, 2),
      cost: cost12,
      usageUnknown: true,
      error: { code: "cancelled" },
    });
  });

  it("closeAll's model.failed says usageUnknown for an attempt marked so (a unary call the abort cut off)", () => {
    const open = new OpenCalls();
    const { events, ctx } = sink();
    const info: AttemptInfo = { callId: "m-1", attempt: 1, emittedDeltas: false, usageUnknown: true };
    open.modelStarted(info, "m", 990);
    open.closeAll(ctx, new TinyAgentsError("timeout", "deadline"));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "model.failed", usageUnknown: true, error: { code: "timeout" } });
    expect(events[0]).not.toHaveProperty("usage");
  });
});

const cost12: CostTotals = { currency: "USD", input: 10, output: 2, cacheRead: 0, cacheWrite: 0, total: 12 };

function usage(input: number, output: number): Usage {
  return {
    inputTokens: input,
    outputTokens: output,
    totalTokens: input + output,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}
