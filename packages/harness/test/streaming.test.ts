import { AgentHarness, runText } from "@tinyagents/harness";
import {
  DeterministicClock,
  DeterministicIds,
  FakeTool,
  runScript,
  ScriptedModel,
  type ScriptStep,
  SlowModel,
  StreamingMock,
} from "@tinyagents/harness/testkit";
import type { JsonObject, ModelResponse } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, runStreaming, tokens } from "./helpers.js";

const reasoningAnswer: ModelResponse = {
  message: {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Let me think about the weather.", signature: "sig-1" },
      { type: "text", text: "It is sunny in Oslo and rainy in Bergen." },
    ],
    toolCalls: [],
  },
  finishReason: "stop",
  usage: tokens(40, 12),
};

/** A three-turn script with parallel tool calls, JSON arguments, reasoning and usage. */
const script = (): ScriptStep[] => [
  {
    text: "Checking both cities.",
    toolCalls: [
      { name: "weather", arguments: { city: "Oslo", units: { temp: "C" } } },
      { name: "weather", arguments: { city: "Bergen", days: [1, 2, 3] } },
    ],
    usage: tokens(20, 8),
  },
  { toolCalls: [{ name: "weather", arguments: { city: "Tromsø" } }], usage: tokens(30, 5) },
  reasoningAnswer,
];

const weather = () =>
  FakeTool.of("weather", (args: JsonObject) => ({ city: args.city ?? null, sky: "clear" }));

describe("middleware-free streaming", () => {
  it("gives a final run equal to the unary run for the same script", async () => {
    const unary = await runScript({ script: script(), tools: [weather()], instructions: "sys" });
    const streamed = await runScript({
      script: script(),
      tools: [weather()],
      instructions: "sys",
      streaming: true,
    });

    expect(unary.error).toBeUndefined();
    expect(streamed.error).toBeUndefined();
    expect(streamed.run.messages).toEqual(unary.run.messages);
    expect(streamed.run.usage).toEqual(unary.run.usage);
    expect(streamed.run.cost).toEqual(unary.run.cost);
    expect(streamed.run.modelCalls).toBe(unary.run.modelCalls);
    expect(streamed.run.toolCalls).toBe(unary.run.toolCalls);
    expect(streamed.run.steps).toEqual(unary.run.steps);
    expect(streamed.run.stopReason).toBe(unary.run.stopReason);
    expect(streamed.run.resolvedModel).toEqual(unary.run.resolvedModel);
    expect(streamed.run.finalResponse).toEqual(unary.run.finalResponse);
    // The whole run, in fact.
    expect(streamed.run).toEqual(unary.run);
    // Status records match too, except the last event id (the stream also emitted deltas).
    const { lastEventId: streamedLast, ...streamedStatus } = streamed.status;
    const { lastEventId: unaryLast, ...unaryStatus } = unary.status;
    expect(streamedStatus).toEqual(unaryStatus);
    expect(streamedLast).toBe(`run-1-evt-${streamed.events.records.length - 1}`);
    expect(unaryLast).toBe(`run-1-evt-${unary.events.records.length - 1}`);
    // The models saw the same requests.
    expect(streamed.model.requests).toEqual(unary.model.requests);
    // Same events, plus the deltas.
    expect(streamed.events.types().filter((t) => !t.startsWith("model.") || !t.endsWith("_delta"))).toEqual(
      unary.events.types(),
    );
    expect(unary.events.ofType("model.text_delta")).toEqual([]);
  });

  it("yields deltas in order, between model.started and model.completed, then the final run", async () => {
    const { harness } = makeHarness();
    const chunks = ["The ", "quick ", "brown ", "fox."];
    harness.registerModel("mock", StreamingMock.fromTextChunks(chunks, { usage: tokens(5, 4) }));
    const { run, items, events, error } = await runStreaming(harness, "go");

    expect(error).toBeUndefined();
    const deltas = events.ofType("model.text_delta").map((e) => e.text);
    expect(deltas).toEqual(chunks);
    const types = events.types();
    expect(types.indexOf("model.started")).toBeLessThan(types.indexOf("model.text_delta"));
    expect(types.lastIndexOf("model.text_delta")).toBeLessThan(types.indexOf("model.completed"));
    expect(types.at(-1)).toBe("run.completed");
    expect(items.at(-1)?.type).toBe("completed");
    expect(items.filter((i) => i.type !== "event")).toHaveLength(1);
    expect(runText(run)).toBe("The quick brown fox.");
    expect(run.usage).toMatchObject({ inputTokens: 5, outputTokens: 4 });
    // Event records are in offset order.
    const offsets = items.flatMap((i) => (i.type === "event" ? [i.record.offset] : []));
    expect(offsets).toEqual(offsets.map((_, i) => i));
  });

  it("streams tool-call deltas and reassembles the arguments for the tool", async () => {
    const w = weather();
    const streamed = await runScript({ script: script(), tools: [w], streaming: true });
    expect(w.argsLog).toEqual([
      { city: "Oslo", units: { temp: "C" } },
      { city: "Bergen", days: [1, 2, 3] },
      { city: "Tromsø" },
    ]);
    const toolDeltas = streamed.events.ofType("model.tool_call_delta");
    expect(toolDeltas.length).toBeGreaterThan(3);
    const reasoning = streamed.events.ofType("model.reasoning_delta");
    expect(reasoning.length).toBeGreaterThan(0);
  });

  it("a model without stream() is streamed from its unary response", async () => {
    const harness = new AgentHarness({ clock: new DeterministicClock(), ids: new DeterministicIds() });
    harness.registerModel("plain", {
      provider: "plain",
      modelId: "plain",
      cacheIdentity: "plain",
      invoke: async () => ({
        message: { role: "assistant", content: [{ type: "text", text: "whole" }], toolCalls: [] },
      }),
    });
    const { run, events } = await runStreaming(harness, "hi");
    expect(runText(run)).toBe("whole");
    expect(events.ofType("model.text_delta").map((e) => e.text)).toEqual(["whole"]);
  });

  it("a stream error item fails the call like a provider error", async () => {
    const { harness } = makeHarness({ policy: { retry: { maxRetries: 0 } } });
    harness.registerModel(
      "mock",
      new StreamingMock([
        [
          { type: "start" },
          { type: "text_delta", text: "partial" },
          { type: "error", message: "bad request", status: 400, retryable: false },
        ],
      ]),
    );
    const { error, items, events } = await runStreaming(harness, "hi");
    expect(error?.code).toBe("provider");
    expect(error?.message).toContain("bad request");
    expect(items.at(-1)?.type).toBe("failed");
    expect(events.ofType("model.failed")).toHaveLength(1);
  });
  it("request.timeoutMs bounds a whole streamed call (real clock), and the chain falls back", async () => {
    const harness = new AgentHarness({ ids: new DeterministicIds(), policy: { fallback: ["backup"] } });
    const slowStream = StreamingMock.fromTextChunks(["a", "b", "c", "d", "e"], { itemDelayMs: 15 });
    harness
      .registerModel("slow", slowStream)
      .registerModel("backup", StreamingMock.fromTextChunks(["quick"]))
      .use({
        name: "timeouts",
        beforeModel: (_ctx, request) => {
          request.timeoutMs = 25;
        },
      });
    const started = Date.now();
    const { run, error, events } = await runStreaming(harness, "hi");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("quick");
    const failed = events.ofType("model.failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ model: "slow", error: { code: "timeout" } });
    expect(events.ofType("fallback.selected")[0]).toMatchObject({ from: "slow", to: "backup" });
    // Deltas of the timed-out attempt were already out; the run keeps only the backup's answer.
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it("request.timeoutMs bounds a unary call too", async () => {
    const harness = new AgentHarness({ ids: new DeterministicIds() });
    harness
      .registerModel("slow", new SlowModel({ delayMs: 5_000 }))
      .use({ name: "timeouts", beforeModel: (_ctx, request) => ({ ...request, timeoutMs: 20 }) });
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("timeout");
    expect(error?.details).toMatchObject({ scope: "model_call", value: 20 });
    expect(events.ofType("model.failed")).toHaveLength(1);
  });

  it("a streaming run that cannot start (depth over maxDepth) still ends with one failed item", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel(["unused"]);
    harness.registerModel("m", model);
    const { items, error, status } = await runStreaming(harness, "hi", { depth: 9, maxDepth: 8 });
    expect(items.map((i) => i.type)).toEqual(["failed"]);
    expect(error?.code).toBe("sub_agent_depth");
    expect(status.status).toBe("failed");
    expect(model.callCount).toBe(0);
  });
});
