import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
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
    const model = open.modelStarted("m-1", "m", 1, 980);
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
});
