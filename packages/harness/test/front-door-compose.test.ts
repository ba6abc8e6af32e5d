/**
 * The front door composes: `createAgent` in one call, `agent.asTool` as a sub-agent in one call
 * (usage, cost and events roll up like a hand-built SubAgent), and structured output as an option
 * of the same agent — with streaming, resume and sub-agents.
 */
import { AgentHarness, createAgent, SteeringHandle, tool } from "@tinyagents/harness";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const PRICE = { inputPerMillion: 1_000_000, outputPerMillion: 1_000_000 };
const City = z.object({ city: z.string(), population: z.number() });

describe("createAgent", () => {
  it("builds a working agent from a model, tools, instructions, policy and middleware", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "add", arguments: { a: 2, b: 3 } }] }, "5"], {
      usage: usage({ inputTokens: 4, outputTokens: 1 }),
    });
    const add = tool({
      name: "add",
      description: "Add two numbers",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => String(a + b),
    });
    const seen: string[] = [];
    const agent = createAgent({
      model,
      pricing: PRICE,
      tools: [add],
      instructions: "You add.",
      policy: { limits: { maxModelCalls: 5 } },
      middleware: [{ name: "spy", beforeModel: () => void seen.push("model") }],
      ids: new DeterministicIds(),
    });
    const result = await agent.run("2+3?");
    expect(result.text).toBe("5");
    expect(result.cost.total).toBeCloseTo(10, 6);
    expect(model.requests[0]?.messages[0]).toMatchObject({ role: "system" });
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["add"]);
    expect(seen).toEqual(["model", "model"]);
    expect(agent.policy.limits.maxModelCalls).toBe(5);
    expect(agent.models.names()).toEqual(["main"]);
  });

  it("types and validates a response format given at creation", async () => {
    const agent = createAgent({
      model: new ScriptedModel(['{"city":"Oslo","population":709000}']),
      responseFormat: City,
      responseFormatOptions: { strategy: "native" },
    });
    const result = await agent.run("Oslo?");
    expect(result.structured?.city).toBe("Oslo");
  });

  it("builds a model from a provider:model spec, and refuses a missing model", () => {
    const agent = createAgent({ model: "ollama:qwen3:8b" });
    const registered = agent.models.get("main")?.model;
    expect(registered?.provider).toBe("ollama");
    expect(registered?.modelId).toBe("qwen3:8b");
    const noModel = {} as unknown as Parameters<typeof createAgent>[0];
    expect(() => createAgent(noModel)).toThrow(/`model` is required/);
  });
});

describe("agent.asTool", () => {
  function family() {
    const childModel = new ScriptedModel(["Oslo has 709000 people."], {
      usage: usage({ inputTokens: 7, outputTokens: 3 }),
    });
    const child = createAgent({ model: childModel, pricing: PRICE, instructions: "You know cities." });
    const parentModel = new ScriptedModel(
      [{ toolCalls: [{ name: "researcher", arguments: { input: "Population of Oslo?" } }] }, "About 709k."],
      { usage: usage({ inputTokens: 10, outputTokens: 2 }) },
    );
    const parent = createAgent({
      model: parentModel,
      pricing: PRICE,
      tools: [child.asTool({ name: "researcher", description: "Looks things up" })],
      ids: new DeterministicIds(),
      clock: new DeterministicClock(),
    });
    return { parent, child, childModel, parentModel };
  }

  it("runs the child inside the parent run; usage, cost and children roll up", async () => {
    const { parent, childModel, parentModel } = family();
    const events: { type: string; runId: string; depth: number }[] = [];
    const result = await parent.run("How many people live in Oslo?", {
      onEvent: (r) => events.push({ type: r.event.type, runId: r.runId, depth: r.depth }),
    });
    expect(result.text).toBe("About 709k.");
    // The parent model saw the child's answer as the tool result.
    const toolMessage = parentModel.requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("Oslo has 709000 people.");
    expect(childModel.requests[0]?.messages.at(-1)).toMatchObject({ role: "user" });
    // Usage and cost: 2 parent calls (12 tokens each) + 1 child call (10 tokens).
    expect(result.usage.totalTokens).toBe(24 + 10);
    expect(result.cost.total).toBeCloseTo(34, 6);
    expect(result.children).toEqual([
      expect.objectContaining({ name: "researcher", depth: 1, status: "completed" }),
    ]);
    expect(result.children?.[0]?.usage.totalTokens).toBe(10);
    // The child's events are on the parent's stream, at depth 1, bracketed by subagent events.
    const childRunId = result.children?.[0]?.runId;
    expect(events.some((e) => e.runId === childRunId && e.depth === 1 && e.type === "run.completed")).toBe(
      true,
    );
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["subagent.started", "subagent.completed"]),
    );
  });

  it("rolls up a failed child's usage and answers the parent with an incomplete error result", async () => {
    const childModel = new ScriptedModel([{ toolCalls: [{ name: "loop" }] }], {
      usage: usage({ inputTokens: 5, outputTokens: 5 }),
    });
    const child = createAgent({
      model: childModel,
      tools: [FakeTool.returning("loop", "again")],
      policy: { limits: { maxModelCalls: 1 } },
    });
    const parent = createAgent({
      model: new ScriptedModel([{ toolCalls: [{ name: "worker", arguments: { input: "go" } }] }, "gave up"]),
      tools: [child.asTool({ name: "worker", description: "Does work" })],
    });
    const result = await parent.run("start");
    expect(result.text).toBe("gave up");
    expect(result.children?.[0]).toMatchObject({ name: "worker", status: "failed" });
    expect(result.usage.totalTokens).toBe(10);
    const toolMessage = result.messages.find((m) => m.role === "tool");
    expect(JSON.stringify(toolMessage)).toContain("incomplete");
  });

  it("streams the child's events through the parent's stream", async () => {
    const { parent } = family();
    const stream = parent.stream("How many?");
    const depths = new Set<number>();
    for await (const item of stream) if (item.type === "event") depths.add(item.record.depth);
    expect([...depths].sort()).toEqual([0, 1]);
    expect((await stream.result).children).toHaveLength(1);
  });

  it("refuses a tool name that is not snake_case", () => {
    const child = createAgent({ model: new ScriptedModel([]) });
    expect(() => child.asTool({ name: "has space", description: "x" })).toThrow(TinyAgentsError);
  });
});

describe("structured output composes", () => {
  it("a structured child via asTool hands its validated value to the parent", async () => {
    const child = createAgent({
      model: new ScriptedModel(['{"city":"Oslo","population":709000}']),
      responseFormat: City,
      responseFormatOptions: { strategy: "native" },
    });
    const parentModel = new ScriptedModel([
      { toolCalls: [{ name: "lookup", arguments: { input: "Oslo" } }] },
      "done",
    ]);
    const parent = createAgent({
      model: parentModel,
      tools: [child.asTool({ name: "lookup", description: "City facts" })],
    });
    await parent.run("go");
    const toolMessage = parentModel.requests[1]?.messages.find((m) => m.role === "tool");
    expect(toolMessage).toMatchObject({
      content: [{ type: "json", value: { city: "Oslo", population: 709000 } }],
    });
  });

  it("with resume: a structured agent paused for approval resumes to a typed answer", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "census", arguments: {} }] },
      '{"city":"Bergen","population":291000}',
    ]);
    let pause = true;
    const agent = new AgentHarness()
      .registerModel("m", model)
      .registerTool(FakeTool.returning("census", "291000"))
      .use({
        name: "approval",
        afterModel: (ctx) => {
          if (pause) ctx.run.requestControl({ kind: "interrupt", reason: "approve census" });
          pause = false;
        },
      })
      .withResponseFormat(City, { strategy: "native" });
    const first = await agent.run("Bergen?", { steering: SteeringHandle.allowAll() });
    expect(first.stopReason).toBe("interrupted");
    expect(first.structured).toBeUndefined();
    const second = await agent.run(JSON.parse(JSON.stringify(first.paused)));
    expect(second.structured).toEqual({ city: "Bergen", population: 291000 });
    // The resumed run still asked for the format.
    expect(model.requests[1]?.responseFormat).toMatchObject({ type: "json_schema" });
  });

  it("with streaming: the result carries the structured value", async () => {
    const agent = new AgentHarness()
      .registerModel("m", new ScriptedModel(['{"city":"Oslo","population":1}']))
      .withResponseFormat(City, { strategy: "native" });
    const result = await agent.stream("Oslo?").result;
    expect(result.structured).toEqual({ city: "Oslo", population: 1 });
  });

  it("per run: a response format for one run only", async () => {
    const model = new ScriptedModel(['{"city":"Oslo","population":2}', "plain text"]);
    const agent = new AgentHarness().registerModel("m", model);
    const typed = await agent.run("x", {
      responseFormat: City,
      responseFormatOptions: { strategy: "native" },
    });
    expect(typed.structured).toEqual({ city: "Oslo", population: 2 });
    const plain = await agent.run("y");
    expect(plain.structured).toBeUndefined();
    expect(plain.text).toBe("plain text");
    expect(model.requests[1]?.responseFormat).toBeUndefined();
  });

  it("the agent keeps its own format: withResponseFormat returns a view, registration stays shared", async () => {
    const agent = new AgentHarness().registerModel("m", new ScriptedModel(['{"city":"A","population":3}']));
    const typed = agent.withResponseFormat(City, { strategy: "native" });
    expect(agent.responseFormat).toBeUndefined();
    expect(typed.responseFormat?.name).toBe("final_answer");
    agent.registerTool(FakeTool.returning("later", "x"));
    expect(typed.tools.has("later")).toBe(true);
    expect(() => typed.registerTool(FakeTool.returning("final_answer", "x"))).toThrow(/same name/);
  });
});
