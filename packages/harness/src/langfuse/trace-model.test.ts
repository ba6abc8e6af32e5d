import { EventSink } from "@tinyagents/harness";
import type { EventScope } from "@tinyagents/harness/internal";
import {
  buildTraceModels,
  exportResource,
  exportSpans,
  ingestionEnvelopes,
  langfuseCostDetails,
  langfuseUsageDetails,
  type TraceObservation,
} from "@tinyagents/harness/langfuse";
import { EventRecorder } from "@tinyagents/harness/testkit";
import { usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";

/** A sink on a hand-driven clock with a recorder attached. */
function recorded() {
  let now = 1_700_000_000_000;
  const sink = new EventSink("root", { now: () => now });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  return {
    sink,
    recorder,
    tick: (ms: number) => {
      now += ms;
    },
  };
}

const root: EventScope = { runId: "root", rootRunId: "root", depth: 0 };
const child: EventScope = { runId: "kid", parentRunId: "root", rootRunId: "root", depth: 1 };

function shape(observations: TraceObservation[]) {
  return observations.map((o) => [o.key, o.kind, o.parentKey ?? null, o.level]);
}

describe("buildTraceModels", () => {
  it("maps runs, attempts, tools and events to observations with parent links", () => {
    const { sink, recorder, tick } = recorded();
    sink.emit(root, { type: "run.started", input: 1, threadId: "t-1" });
    sink.emit(root, {
      type: "model.started",
      callId: "m1",
      model: "main",
      provider: "openai",
      providerModelId: "gpt-x",
      attempt: 1,
    });
    tick(50);
    const error = {
      name: "ProviderError",
      code: "provider" as const,
      message: "busy",
      details: { providerCode: "busy" },
    };
    sink.emit(root, { type: "model.failed", callId: "m1", model: "main", durationMs: 50, attempt: 1, error });
    sink.emit(root, { type: "retry.scheduled", callId: "m1", attempt: 2, delayMs: 100, error });
    tick(100);
    sink.emit(root, {
      type: "model.started",
      callId: "m1",
      model: "main",
      provider: "openai",
      providerModelId: "gpt-x",
      attempt: 2,
    });
    tick(5);
    sink.emit(root, { type: "model.text_delta", callId: "m1", text: "hi" });
    const u = usage({ inputTokens: 1000, outputTokens: 200, cacheReadTokens: 600, reasoningTokens: 50 });
    const cost = {
      currency: "USD" as const,
      input: 0.4,
      output: 0.2,
      cacheRead: 0.06,
      cacheWrite: 0,
      total: 0.66,
    };
    sink.emit(root, { type: "usage.recorded", callId: "m1", model: "main", usage: u });
    sink.emit(root, { type: "cost.recorded", callId: "m1", model: "main", cost });
    tick(20);
    sink.emit(root, {
      type: "model.completed",
      callId: "m1",
      model: "main",
      durationMs: 25,
      usage: u,
      finishReason: "tool_calls",
      toolCalls: 1,
      servedFromCache: false,
    });
    sink.emit(root, {
      type: "tool.started",
      callId: "c1",
      toolName: "delegate",
      arguments: { q: "secret plan" },
    });
    sink.emit(root, { type: "tool.progress", callId: "c1", toolName: "delegate", message: "half way" });
    sink.emit(child, { type: "run.started", input: 1 });
    tick(10);
    sink.emit(child, {
      type: "run.completed",
      modelCalls: 0,
      toolCalls: 0,
      usage: { calls: 0, ...usage({}) },
      cost: { ...cost, total: 0 },
    });
    sink.emit(root, {
      type: "tool.completed",
      callId: "c1",
      toolName: "delegate",
      durationMs: 10,
      isError: true,
      outputBytes: 12,
    });
    sink.emit(root, {
      type: "run.completed",
      modelCalls: 2,
      toolCalls: 1,
      usage: { calls: 1, ...u },
      cost,
    });

    const [model, ...others] = buildTraceModels(recorder.records, {
      agentName: (r) => (r.depth ? "kid" : "boss"),
    });
    expect(others).toEqual([]);
    expect(model).toMatchObject({ rootRunId: "root", threadId: "t-1", agentName: "boss" });
    expect(shape(model?.observations ?? [])).toEqual([
      ["run:root", "agent", null, "DEFAULT"],
      // One generation per call: the failed first attempt and the retry are events inside it.
      ["model:root:m1", "generation", "run:root", "DEFAULT"],
      ["event:root-evt-2", "event", "model:root:m1", "WARNING"],
      ["event:root-evt-3", "event", "model:root:m1", "WARNING"],
      ["tool:root:c1", "tool", "run:root", "ERROR"],
      ["event:root-evt-10", "event", "tool:root:c1", "DEFAULT"],
      ["run:kid", "agent", "tool:root:c1", "DEFAULT"],
    ]);
    const byKey = new Map(model?.observations.map((o) => [o.key, o]));
    const failed = byKey.get("event:root-evt-2");
    expect(failed).toMatchObject({
      name: "model.failed",
      statusMessage: "busy",
      attributes: { "error.type": "busy" },
    });
    expect(failed?.startTs).toBe(1_700_000_000_050);
    const ok = byKey.get("model:root:m1");
    expect(ok).toMatchObject({
      model: "gpt-x",
      usage: u,
      cost,
      completionStartTs: 1_700_000_000_155,
      metadata: { attempts: 2 },
      modelParameters: { stream: true },
    });
    expect(ok?.startTs).toBe(1_700_000_000_000);
    expect(ok?.output).toBeUndefined();
    expect(byKey.get("run:kid")?.name).toBe("invoke_agent kid");
    // No content by default: neither tool arguments nor progress text.
    expect(JSON.stringify(model)).not.toContain("secret plan");
    expect(JSON.stringify(model)).not.toContain("half way");
  });

  it("captures content only on request", () => {
    const { sink, recorder } = recorded();
    sink.emit(root, { type: "run.started", input: 1 });
    sink.emit(root, { type: "tool.started", callId: "c1", toolName: "t", arguments: { q: "secret plan" } });
    const [model] = buildTraceModels(recorder.records, { captureContent: true });
    expect(model?.observations[1]?.input).toEqual({ q: "secret plan" });
  });

  it("closes what the records leave open, and opens runs whose start is missing", () => {
    const { sink, recorder, tick } = recorded();
    sink.emit(child, { type: "tool.started", callId: "c9", toolName: "slow", arguments: {} });
    tick(40);
    sink.emit(child, { type: "limit.reached", limit: "tool_calls", value: 1, count: 1 });

    const [model] = buildTraceModels(recorder.records);
    expect(shape(model?.observations ?? [])).toEqual([
      ["run:kid", "agent", null, "WARNING"],
      ["tool:kid:c9", "tool", "run:kid", "WARNING"],
      ["event:root-evt-1", "event", "run:kid", "WARNING"],
    ]);
    expect(model?.observations[0]?.metadata).toMatchObject({ startMissing: true, incomplete: true });
    expect(model?.observations[1]).toMatchObject({
      endTs: 1_700_000_000_040,
      metadata: { incomplete: true },
    });
  });

  it("fails open children with the run's error", () => {
    const { sink, recorder } = recorded();
    sink.emit(root, { type: "run.started", input: 1 });
    sink.emit(root, { type: "tool.started", callId: "c1", toolName: "spawn", arguments: {} });
    sink.emit(child, { type: "run.started", input: 1 });
    sink.emit(root, {
      type: "run.failed",
      error: { name: "TinyAgentsError", code: "cancelled", message: "stop" },
    });
    // Records of the ended child after its parent failed are ignored.
    sink.emit(child, { type: "tool.started", callId: "late", toolName: "x", arguments: {} });

    const [model] = buildTraceModels(recorder.records);
    expect(shape(model?.observations ?? [])).toEqual([
      ["run:root", "agent", null, "ERROR"],
      ["tool:root:c1", "tool", "run:root", "ERROR"],
      ["run:kid", "agent", "tool:root:c1", "ERROR"],
    ]);
    expect(model?.observations[2]?.statusMessage).toBe("ended by the run's failure: stop");
  });

  it("gives one trace per root run and deterministic ids", () => {
    const { sink, recorder } = recorded();
    sink.emit(root, { type: "run.started", input: 1 });
    sink.emit({ runId: "other", rootRunId: "other", depth: 0 }, { type: "run.started", input: 1 });
    const models = buildTraceModels(recorder.records);
    expect(models.map((m) => m.rootRunId)).toEqual(["root", "other"]);
    const resource = exportResource("svc");
    const ids = (spans: ReturnType<typeof exportSpans>) => spans.map((span) => span.spanContext());
    const first = models.map((m) => ids(exportSpans(m, {}, resource)));
    const again = buildTraceModels(recorder.records).map((m) => ids(exportSpans(m, {}, resource)));
    expect(again).toEqual(first);
    expect(first[0]?.[0]?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(first[0]?.[0]?.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(first[0]?.[0]?.traceId).not.toBe(first[1]?.[0]?.traceId);
    const envelopes = models.flatMap((m) => ingestionEnvelopes(m));
    expect(new Set(envelopes.map((e) => e.id)).size).toBe(envelopes.length);
  });
});

describe("Langfuse usage and cost details", () => {
  it("splits usage into disjoint classes that sum to the total", () => {
    const details = langfuseUsageDetails(
      usage({
        inputTokens: 1000,
        outputTokens: 200,
        cacheReadTokens: 600,
        cacheWriteTokens: 100,
        reasoningTokens: 50,
      }),
    );
    expect(details).toEqual({
      input: 300,
      input_cache_read: 600,
      input_cache_creation: 100,
      output: 150,
      output_reasoning: 50,
      total: 1200,
    });
    expect(langfuseUsageDetails(usage({ inputTokens: 10, outputTokens: 2 }))).toEqual({
      input: 10,
      output: 2,
      input_cache_read: 0,
      input_cache_creation: 0,
      total: 12,
    });
  });

  it("maps harness cost to the same keys", () => {
    expect(
      langfuseCostDetails({
        currency: "USD",
        input: 0.3,
        output: 0.2,
        cacheRead: 0.06,
        cacheWrite: 0,
        total: 0.56,
      }),
    ).toEqual({ input: 0.3, output: 0.2, input_cache_read: 0.06, total: 0.56 });
  });
});
