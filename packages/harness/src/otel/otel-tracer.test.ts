import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { AgentHarness, EventSink } from "@tinyagents/harness";
import { createOtelListener, OtelTracer } from "@tinyagents/harness/otel";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { ProviderError, usage } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { lowerLayer } from "../runtime/lower-layer.js";

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;

beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});

afterEach(async () => {
  await provider.shutdown();
});

const tracer = () => provider.getTracer("tinyagents-test");

/** A span tree: `name` plus children in start order (ties: export order). */
interface Node {
  name: string;
  children: Node[];
}

function spans(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}

function tree(): Node[] {
  const all = spans();
  const byId = new Map(all.map((s) => [s.spanContext().spanId, s]));
  const build = (span: ReadableSpan): Node => ({
    name: span.name,
    children: all
      .filter((child) => child.parentSpanContext?.spanId === span.spanContext().spanId)
      .sort((a, b) => ms(a.startTime) - ms(b.startTime))
      .map(build),
  });
  return all
    .filter((s) => s.parentSpanContext === undefined || !byId.has(s.parentSpanContext.spanId))
    .map(build);
}

function one(name: string, index = 0): ReadableSpan {
  const found = spans().filter((s) => s.name === name);
  const span = found[index];
  if (span === undefined) throw new Error(`no span "${name}" #${index}; have ${spans().map((s) => s.name)}`);
  return span;
}

function parentOf(span: ReadableSpan): ReadableSpan | undefined {
  return spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
}

function ms(time: [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}

const leaf = (name: string): Node => ({ name, children: [] });

function makeHarness(clock = new DeterministicClock()) {
  return { clock, harness: new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() }) };
}

describe("OtelTracer", () => {
  it("turns a tool run into invoke_agent > chat / execute_tool spans with GenAI attributes", async () => {
    const { clock, harness } = makeHarness();
    const model = new ScriptedModel([
      async () => {
        await clock.sleep(120);
        return {
          toolCalls: [{ name: "lookup", id: "call-a", arguments: { city: "Paris" } }],
          usage: usage({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 60, cacheWriteTokens: 5 }),
        };
      },
      { toolCalls: [], text: "It is sunny.", usage: usage({ inputTokens: 150, outputTokens: 8 }) },
    ]);
    harness
      .registerModel("main", model, { pricing: { inputPerMillion: 1, outputPerMillion: 2 } })
      .registerTool(FakeTool.returning("lookup", "sunny", { delayMs: 30 }));
    const sink = new EventSink("run-1", { now: () => clock.now() });
    const otel = new OtelTracer(tracer(), { agentName: "weather" });
    otel.attach(sink);

    await lowerLayer(harness).invoke(
      undefined,
      undefined,
      { runId: "run-1", threadId: "thread-9" },
      "weather?",
      {
        events: sink,
      },
    );

    expect(tree()).toEqual([
      {
        name: "invoke_agent weather",
        children: [leaf("chat scripted"), leaf("execute_tool lookup"), leaf("chat scripted")],
      },
    ]);
    expect(otel.openSpans).toBe(0);

    const run = one("invoke_agent weather");
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather",
      "gen_ai.provider.name": "scripted",
      "gen_ai.conversation.id": "thread-9",
      "tinyagents.run.usage.input_tokens": 250,
      "tinyagents.run.usage.output_tokens": 18,
      "tinyagents.run.usage.cache_read.input_tokens": 60,
      "tinyagents.run.id": "run-1",
      "tinyagents.run.depth": 0,
      "tinyagents.run.model_calls": 2,
      "tinyagents.run.tool_calls": 1,
    });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);

    const chat = one("chat scripted");
    expect(chat.kind).toBe(SpanKind.CLIENT);
    expect(chat.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "scripted",
      "gen_ai.response.model": "scripted",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.input_tokens": 100,
      "gen_ai.usage.output_tokens": 10,
      "gen_ai.usage.cache_read.input_tokens": 60,
      "gen_ai.usage.cache_creation.input_tokens": 5,
      "tinyagents.model.name": "main",
      "tinyagents.call.id": "run-1-model-1",
      "tinyagents.model.attempt": 1,
      "tinyagents.model.served_from_cache": false,
      "tinyagents.cost.total_usd": expect.closeTo((35 + 60 + 5) / 1e6 + 20 / 1e6, 12),
    });
    // Times come from the run's clock (the model slept 120 ms, the tool 30 ms).
    expect(ms(chat.startTime)).toBe(clock.now() - 150);
    expect(ms(chat.endTime) - ms(chat.startTime)).toBe(120);

    const tool = one("execute_tool lookup");
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(tool.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup",
      "gen_ai.tool.call.id": "call-a",
      "gen_ai.tool.type": "function",
      "tinyagents.tool.is_error": false,
      "tinyagents.tool.output_bytes": expect.any(Number),
    });
    expect(ms(tool.endTime) - ms(tool.startTime)).toBe(30);
    expect(parentOf(tool)).toBe(run);
    // One trace for the whole run; no content by default.
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(JSON.stringify(spans().map((s) => s.attributes))).not.toContain("Paris");
  });

  it("gives each attempt of a retried model call its own chat span, the failed one in ERROR", async () => {
    const { clock, harness } = makeHarness();
    const overloaded = new ProviderError({
      provider: "anthropic",
      message: "Overloaded",
      kind: "upstream_unhealthy",
      status: 529,
      providerCode: "overloaded_error",
    });
    harness.registerModel("main", new ScriptedModel([overloaded, "recovered"], { modelId: "claude-x" }));
    harness.withPolicy({ retry: { initialBackoffMs: 250 } });
    const sink = new EventSink("run-r", { now: () => clock.now() });
    sink.subscribe(createOtelListener(tracer()));

    await lowerLayer(harness).invoke(undefined, undefined, { runId: "run-r" }, "hi", { events: sink });

    expect(tree()).toEqual([
      { name: "invoke_agent", children: [leaf("chat claude-x"), leaf("chat claude-x")] },
    ]);
    const failed = one("chat claude-x", 0);
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: "Overloaded" });
    expect(failed.attributes).toMatchObject({
      "error.type": "overloaded_error",
      "tinyagents.model.attempt": 1,
    });
    expect(failed.events.map((e) => e.name)).toEqual(["exception"]);
    const ok = one("chat claude-x", 1);
    expect(ok.status.code).toBe(SpanStatusCode.UNSET);
    expect(ok.attributes).toMatchObject({
      "tinyagents.model.attempt": 2,
      "gen_ai.response.model": "claude-x",
    });
    expect(ms(ok.startTime) - ms(failed.endTime)).toBe(250);
    const run = one("invoke_agent");
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        "retry.scheduled",
        {
          callId: "run-r-model-1",
          attempt: 2,
          delayMs: 250,
          "error.type": "overloaded_error",
          "error.message": "Overloaded",
        },
      ],
    ]);
  });

  it("marks the run span ERROR when retries run out", async () => {
    const { harness } = makeHarness();
    const down = () =>
      new ProviderError({
        provider: "openai",
        message: "bad gateway",
        kind: "upstream_unhealthy",
        status: 502,
      });
    harness.registerModel("main", new ScriptedModel([down(), down()], { modelId: "gpt-x" }));
    harness.withPolicy({ retry: { maxRetries: 1, initialBackoffMs: 10 } });
    const sink = new EventSink("run-f");
    const otel = new OtelTracer(tracer());
    otel.attach(sink);

    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-f" },
      "hi",
      {
        events: sink,
      },
    );

    expect(outcome.error?.code).toBe("provider");
    // error.type: the HTTP status of the provider failure (no provider error code here).
    expect(spans().map((s) => [s.name, s.status.code])).toEqual([
      ["chat gpt-x", SpanStatusCode.ERROR],
      ["chat gpt-x", SpanStatusCode.ERROR],
      ["invoke_agent", SpanStatusCode.ERROR],
    ]);
    expect(one("invoke_agent").attributes["error.type"]).toBe("502");
    expect(otel.openSpans).toBe(0);
  });

  it("nests a sub-agent run under the parent's tool span", async () => {
    const clock = new DeterministicClock();
    const child = makeHarness(clock).harness;
    child.registerModel("small", new ScriptedModel(["child answer"], { modelId: "mini" }));
    const { harness: parent } = makeHarness(clock);
    parent.registerModel(
      "big",
      new ScriptedModel([{ toolCalls: [{ name: "delegate", id: "call-d" }] }, "done"]),
    );
    parent.registerTool(
      new FakeTool("delegate", async (_args, ctx) => {
        const childCtx = lowerLayer(child).createContext(
          {
            runId: "child-1",
            parentRunId: ctx.run.runId,
            rootRunId: ctx.run.scope.rootRunId,
            depth: ctx.run.depth + 1,
          },
          undefined,
          { events: ctx.run.events, signal: ctx.run.signal },
        );
        const run = await lowerLayer(child).invokeInContext(undefined, childCtx, "sub task");
        return run.messages.length;
      }),
    );
    const sink = new EventSink("root-1", { now: () => clock.now() });
    const otel = new OtelTracer(tracer(), { agentName: (run) => (run.depth === 0 ? "planner" : "worker") });
    otel.attach(sink);

    await lowerLayer(parent).invoke(undefined, undefined, { runId: "root-1" }, "go", { events: sink });

    expect(tree()).toEqual([
      {
        name: "invoke_agent planner",
        children: [
          leaf("chat scripted"),
          {
            name: "execute_tool delegate",
            children: [{ name: "invoke_agent worker", children: [leaf("chat mini")] }],
          },
          leaf("chat scripted"),
        ],
      },
    ]);
    const worker = one("invoke_agent worker");
    expect(worker.attributes).toMatchObject({
      "tinyagents.run.id": "child-1",
      "tinyagents.run.parent_id": "root-1",
      "tinyagents.run.root_id": "root-1",
      "tinyagents.run.depth": 1,
    });
    expect(parentOf(worker)?.name).toBe("execute_tool delegate");
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
    expect(otel.openSpans).toBe(0);
  });

  it("records content only when captureContent is on (streamed text, tool arguments)", async () => {
    const { clock, harness } = makeHarness();
    harness
      .registerModel(
        "main",
        new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: { say: "hello" } }] }, "all done"]),
      )
      .registerTool(FakeTool.returning("echo", "ok"));
    const sink = new EventSink("run-s", { now: () => clock.now() });
    new OtelTracer(tracer(), { captureContent: true }).attach(sink);

    for await (const _item of lowerLayer(harness).invokeStreaming(
      undefined,
      undefined,
      { runId: "run-s" },
      "hi",
      {
        events: sink,
      },
    )) {
      // drain
    }

    expect(one("execute_tool echo").attributes["gen_ai.tool.call.arguments"]).toBe('{"say":"hello"}');
    const answer = one("chat scripted", 1);
    expect(answer.attributes).toMatchObject({
      "gen_ai.request.stream": true,
      "gen_ai.response.time_to_first_chunk": 0,
    });
    expect(JSON.parse(String(answer.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "all done" }], finish_reason: "stop" },
    ]);
  });

  it("ends every open span when a run fails mid-tool, including child runs", () => {
    const sink = new EventSink("p", { now: () => 1_000 });
    const otel = new OtelTracer(tracer());
    otel.attach(sink);
    const parent = { runId: "p", rootRunId: "p", depth: 0 };
    const kid = { runId: "k", parentRunId: "p", rootRunId: "p", depth: 1 };
    sink.emit(parent, { type: "run.started", input: 1 });
    sink.emit(parent, { type: "tool.started", callId: "t1", toolName: "spawn", arguments: {} });
    sink.emit(kid, { type: "run.started", input: 1 });
    sink.emit(kid, {
      type: "model.started",
      callId: "k-model-1",
      model: "m",
      provider: "openai",
      providerModelId: "gpt-x",
      attempt: 1,
    });
    expect(otel.openSpans).toBe(4);
    sink.emit(parent, {
      type: "run.failed",
      error: { name: "TinyAgentsError", code: "cancelled", message: "the caller aborted the run" },
    });

    expect(otel.openSpans).toBe(0);
    expect(tree()).toEqual([
      {
        name: "invoke_agent",
        children: [
          {
            name: "execute_tool spawn",
            children: [{ name: "invoke_agent", children: [leaf("chat gpt-x")] }],
          },
        ],
      },
    ]);
    for (const span of spans()) {
      expect(span.ended).toBe(true);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes["error.type"]).toBe("cancelled");
    }
    expect(one("chat gpt-x").attributes["tinyagents.incomplete"]).toBe(true);
    // Late events of the ended child are ignored, not turned into orphan spans.
    sink.emit(kid, {
      type: "run.completed",
      modelCalls: 0,
      toolCalls: 0,
      usage: emptyTotals(),
      cost: noCost(),
    });
    expect(spans()).toHaveLength(4);
  });

  it("uses the configured parent context for top-level runs and endAll closes what is left", () => {
    const outer = tracer().startSpan("http request");
    // An epoch time: the SDK reads a number below its time origin as a `performance.now()` offset.
    const sink = new EventSink("x", { now: () => 1_700_000_005_000 });
    const otel = new OtelTracer(tracer(), { parentContext: () => trace.setSpan(context.active(), outer) });
    otel.attach(sink);
    sink.emit({ runId: "x", rootRunId: "x", depth: 0 }, { type: "run.started", input: 1 });
    // A record of a run never seen starting is ignored.
    sink.emit(
      { runId: "ghost", rootRunId: "ghost", depth: 0 },
      { type: "tool.started", callId: "c", toolName: "t", arguments: {} },
    );
    expect(otel.openSpans).toBe(1);
    otel.endAll();
    outer.end();

    expect(otel.openSpans).toBe(0);
    const run = one("invoke_agent");
    expect(parentOf(run)?.name).toBe("http request");
    expect(run.attributes["tinyagents.incomplete"]).toBe(true);
    expect(ms(run.endTime)).toBe(1_700_000_005_000);
  });
});

function emptyTotals() {
  return { calls: 0, ...usage({}) };
}

function noCost() {
  return { currency: "USD" as const, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}
