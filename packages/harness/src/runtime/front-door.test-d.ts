import type { ChatModel, JsonObject, JsonValue } from "@tinyagents/inference";
import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { StopReason } from "../agent-loop/agent-run.js";
import type { EventRecord } from "../contracts/agent-event.js";
import type { Tool, ToolExecutionContext } from "../tool/tool.js";
import type { ModelCallResult } from "./agent-harness.js";
import { AgentHarness } from "./agent-harness.js";
import { createAgent } from "./create-agent.js";
import type { RunOptions } from "./run-options.js";
import type { AgentRunError, RunResult } from "./run-result.js";
import type { AgentStream, RunStreamItem } from "./run-stream.js";

const City = z.object({ city: z.string(), population: z.number(), tags: z.array(z.string()).default([]) });
type CityOut = { city: string; population: number; tags: string[] };

describe("front-door types", () => {
  it("run resolves to a RunResult with flat usage, text and stopReason", async () => {
    const agent = new AgentHarness();
    const result = await agent.run("hi");
    expectTypeOf(result).toEqualTypeOf<RunResult<unknown>>();
    expectTypeOf(result.text).toEqualTypeOf<string>();
    expectTypeOf(result.usage.totalTokens).toEqualTypeOf<number>();
    expectTypeOf(result.stopReason).toEqualTypeOf<StopReason>();
    expectTypeOf(result.runId).toEqualTypeOf<string>();
  });

  it("types structured output from the agent's response format (withResponseFormat)", async () => {
    const agent = new AgentHarness<{ user: string }, undefined>().withResponseFormat(City);
    expectTypeOf(agent).toEqualTypeOf<AgentHarness<{ user: string }, undefined, CityOut>>();
    const result = await agent.run("Oslo?", { state: { user: "u" } });
    expectTypeOf(result.structured).toEqualTypeOf<CityOut | undefined>();
    expectTypeOf(agent.stream("x")).toEqualTypeOf<AgentStream<CityOut>>();
    // The typed agent is still an agent: the lower layer and sub-agent plumbing accept it.
    expectTypeOf(agent).toMatchTypeOf<AgentHarness<{ user: string }, undefined>>();
  });

  it("types structured output from a per-run response format", async () => {
    const agent = new AgentHarness();
    const typed = await agent.run("x", {
      responseFormat: z.object({ n: z.string().transform((s) => s.length) }),
    });
    expectTypeOf(typed.structured).toEqualTypeOf<{ n: number } | undefined>();
    const json = await agent.run("x", { responseFormat: { type: "object", properties: {} } });
    expectTypeOf(json.structured).toEqualTypeOf<JsonValue | undefined>();
  });

  it("checks the options against the agent's State and Ctx", () => {
    const agent = new AgentHarness<{ user: string }, { tenant: string }>();
    void agent.run("x", { state: { user: "u" }, context: { tenant: "t" }, limits: { maxModelCalls: 3 } });
    // @ts-expect-error state must match the agent's State
    void agent.run("x", { state: 42 });
    // @ts-expect-error context data must match the agent's Ctx
    void agent.run("x", { context: { tenant: 1 } });
    // @ts-expect-error unknown limit
    void agent.run("x", { limits: { maxTokens: 3 } });
    expectTypeOf<RunOptions<{ user: string }, { tenant: string }>["onEvent"]>().toEqualTypeOf<
      ((record: EventRecord) => void) | undefined
    >();
  });

  it("the stream's readers are typed", () => {
    const stream = new AgentHarness().withResponseFormat(City).stream("x");
    expectTypeOf(stream.result).toEqualTypeOf<Promise<RunResult<CityOut>>>();
    expectTypeOf(stream.textStream).toEqualTypeOf<AsyncIterable<string>>();
    expectTypeOf(stream.toReadableStream()).toEqualTypeOf<ReadableStream<RunStreamItem<CityOut>>>();
    expectTypeOf(stream.toResponse()).toEqualTypeOf<Response>();
    expectTypeOf<AgentRunError["run"]>().toEqualTypeOf<RunResult>();
  });

  it("createAgent infers the structured type from responseFormat", () => {
    const model = {} as ChatModel;
    expectTypeOf(createAgent({ model, responseFormat: City })).toEqualTypeOf<
      AgentHarness<unknown, undefined, CityOut>
    >();
    expectTypeOf(createAgent({ model })).toEqualTypeOf<AgentHarness<unknown, undefined, unknown>>();
    expectTypeOf(
      createAgent({ model: "openai:gpt-4.1-mini", responseFormat: { type: "object" } }),
    ).toEqualTypeOf<AgentHarness<unknown, undefined, JsonValue>>();
    // @ts-expect-error model is required
    createAgent({ instructions: "x" });
  });

  it("asTool gives a tool of the parent's context type", () => {
    const child = new AgentHarness<unknown, { tenant: string }>();
    const asIs = child.asTool({ name: "child", description: "d" });
    expectTypeOf(asIs).toEqualTypeOf<Tool<unknown, { tenant: string }, JsonObject>>();
    const mapped = child.asTool<{ org: string }>({
      name: "child",
      description: "d",
      context: (ctx) => ({ tenant: ctx.run.data.org }),
    });
    expectTypeOf(mapped).toEqualTypeOf<Tool<unknown, { org: string }, JsonObject>>();
  });

  it("the agent's public surface is the front door: no positional entry point", () => {
    const agent = createAgent({ model: {} as ChatModel });
    // @ts-expect-error the positional lower layer is internal (`lowerLayer` from the internal subpath)
    void agent.invoke(undefined, undefined, {}, "hi");
    // @ts-expect-error internal
    void agent.invokeDefault(undefined, "hi");
    // @ts-expect-error internal
    void agent.invokeCollectingPartial(undefined, undefined, {}, "hi");
    // @ts-expect-error internal
    void agent.invokeStreaming(undefined, undefined, {}, "hi");
    // @ts-expect-error internal
    void agent.invokeInContext(undefined, {} as never, "hi");
    // @ts-expect-error internal
    void agent.resumeCollectingPartial(undefined, undefined, {} as never);
    // @ts-expect-error internal
    void agent.createContext({}, undefined);
    // @ts-expect-error resume takes (run id | PausedRun, options), not positional state and data
    void agent.resume(undefined, undefined, {} as never);
    // @ts-expect-error recover takes (run id, options)
    void agent.recover(undefined, undefined, "run-1", {} as never);
    // @ts-expect-error callModel takes (prompt | request, options)
    void agent.callModel(undefined, { messages: [] });
    expectTypeOf(agent.resume("run-1", {})).toEqualTypeOf<Promise<RunResult<unknown>>>();
    expectTypeOf(agent.recover("run-1", {})).toEqualTypeOf<Promise<RunResult<unknown>>>();
    expectTypeOf(agent.callModel("hi", { model: "main" })).toEqualTypeOf<Promise<ModelCallResult>>();
  });

  it("takes a tool's typed context as the parent run", async () => {
    const child = createAgent({ model: {} as ChatModel });
    const ctx = {} as ToolExecutionContext<{ cart: string[] }, { user: string }>;
    expectTypeOf(child.run("go", { parent: ctx })).toEqualTypeOf<Promise<RunResult<unknown>>>();
    void child.run("go", { parent: ctx.run });
    void child.run("go", { parent: { run: ctx.run, name: "helper", callId: ctx.callId } });
    // @ts-expect-error a parent is a run context, not an id
    void child.run("go", { parent: "run-1" });
  });
});
