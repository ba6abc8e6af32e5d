import { ProviderError, type ToolCall, usage, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import { createAgent } from "./create-agent.js";

const pricing = { inputPerMillion: 2, outputPerMillion: 10 };
const callUsage = usage({ inputTokens: 1_000, outputTokens: 500 });

describe("agent.callModel (front door)", () => {
  it("makes one model call through middleware, with usage, cost, events and a model_call status", async () => {
    const model = new ScriptedModel(["the answer"], { usage: callUsage });
    const seen: string[] = [];
    const agent = createAgent({
      model,
      pricing,
      instructions: "Be brief.",
      middleware: [{ name: "spy", beforeModel: () => void seen.push("beforeModel") }],
    });
    const events: EventRecord[] = [];

    const result = await agent.callModel("What is 6 * 7?", {
      runId: "call-1",
      clock: new DeterministicClock(),
      onEvent: (record) => events.push(record),
    });

    expect(result.text).toBe("the answer");
    expect(result.runId).toBe("call-1");
    expect(result.usage.inputTokens).toBe(1_000);
    expect(result.usage.outputTokens).toBe(500);
    // 1,000 input at $2/M + 500 output at $10/M.
    expect(result.cost.total).toBeCloseTo(0.007, 12);
    expect(result.status).toMatchObject({ component: "model_call", status: "completed", modelCalls: 1 });
    expect(seen).toEqual(["beforeModel"]);
    // The prompt goes after the agent's instructions.
    expect(model.requests[0]?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const types = events.map((e) => e.event.type);
    expect(types[0]).toBe("run.started");
    expect(types).toContain("usage.recorded");
    expect(types).toContain("cost.recorded");
    expect(types.at(-1)).toBe("run.completed");
    expect(events.every((e) => e.runId === "call-1")).toBe(true);
  });

  it("returns tool calls without running them (no tools loop)", async () => {
    let executed = 0;
    const add = tool({
      name: "add",
      description: "Add",
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        executed++;
        return "2";
      },
    });
    const agent = createAgent({
      model: new ScriptedModel([{ toolCalls: [{ name: "add", arguments: {} }] }]),
      tools: [add],
    });
    const events: EventRecord[] = [];
    const result = await agent.callModel({ messages: [user("add")] }, { onEvent: (e) => events.push(e) });
    const calls = (result.response.message as { toolCalls?: ToolCall[] }).toolCalls ?? [];
    expect(calls.map((c) => c.name)).toEqual(["add"]);
    expect(executed).toBe(0);
    expect(events.some((e) => e.event.type.startsWith("tool."))).toBe(false);
  });

  it("takes the model from options.model", async () => {
    const main = new ScriptedModel([]);
    const other = new ScriptedModel(["from other"]);
    const agent = createAgent({ model: main, models: { other } });
    const result = await agent.callModel("hi", { model: "other" });
    expect(result.text).toBe("from other");
    expect(result.response.resolvedModel?.name).toBe("other");
    expect(main.requests).toHaveLength(0);
  });

  it("rejects with the call's error and reports it as a failed call", async () => {
    const agent = createAgent({
      model: new ScriptedModel([
        new ProviderError({ provider: "p", message: "denied", kind: "non_retryable" }),
      ]),
    });
    const events: EventRecord[] = [];
    await expect(agent.callModel("hi", { onEvent: (e) => events.push(e) })).rejects.toMatchObject({
      code: "provider",
    });
    expect(events.at(-1)?.event.type).toBe("run.failed");
  });

  it("refuses bad options like run does", async () => {
    const agent = createAgent({ model: new ScriptedModel([]) });
    // @ts-expect-error unknown option
    await expect(agent.callModel("hi", { runID: "x" })).rejects.toMatchObject({ code: "validation" });
    await expect(
      agent.callModel("hi", { responseFormat: { type: "object", properties: {} } }),
    ).rejects.toMatchObject({ code: "validation", details: { field: "responseFormat" } });
  });
});
