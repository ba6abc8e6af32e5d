import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Attributes,
  type BatchObservableCallback,
  type Counter,
  createNoopMeter,
  type Gauge,
  type Histogram,
  type Meter,
  type MetricAttributes,
  type MetricOptions,
  type Observable,
  type ObservableCounter,
  type ObservableGauge,
  type ObservableUpDownCounter,
  type UpDownCounter,
  ValueType,
} from "@opentelemetry/api";
import { AgentHarness, EventSink } from "@tinyagents/harness";
import {
  createOtelMetricsListener,
  GEN_AI_METRIC_BUCKETS,
  GEN_AI_METRICS,
  OtelMetrics,
} from "@tinyagents/harness/otel";
import {
  DeterministicClock,
  DeterministicIds,
  FakeTool,
  ScriptedModel,
  StreamingMock,
} from "@tinyagents/harness/testkit";
import { ProviderError, usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { lowerLayer } from "../runtime/lower-layer.js";

// ---- a recording Meter (no metrics SDK needed) ---------------------------------------------------

interface Point {
  value: number;
  attributes: Attributes;
}

interface Instrument {
  kind: "histogram" | "counter";
  options: MetricOptions | undefined;
  points: Point[];
}

/** Implements the `Meter` methods the listener uses; the others are no-ops. */
class RecordingMeter implements Meter {
  readonly instruments = new Map<string, Instrument>();
  private readonly noop = createNoopMeter();

  createHistogram<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Histogram<A> {
    const instrument = this.register(name, "histogram", options);
    return {
      record: (value, attributes) => instrument.points.push({ value, attributes: { ...attributes } }),
    };
  }

  createCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Counter<A> {
    const instrument = this.register(name, "counter", options);
    return {
      add: (value, attributes) => {
        if (value < 0) throw new Error(`counter ${name}: negative increment ${value}`);
        instrument.points.push({ value, attributes: { ...attributes } });
      },
    };
  }

  createGauge<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): Gauge<A> {
    return this.noop.createGauge(name, options);
  }

  createUpDownCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): UpDownCounter<A> {
    return this.noop.createUpDownCounter(name, options);
  }

  createObservableGauge<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): ObservableGauge<A> {
    return this.noop.createObservableGauge(name, options);
  }

  createObservableCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): ObservableCounter<A> {
    return this.noop.createObservableCounter(name, options);
  }

  createObservableUpDownCounter<A extends MetricAttributes = MetricAttributes>(
    name: string,
    options?: MetricOptions,
  ): ObservableUpDownCounter<A> {
    return this.noop.createObservableUpDownCounter(name, options);
  }

  addBatchObservableCallback<A extends MetricAttributes = MetricAttributes>(
    callback: BatchObservableCallback<A>,
    observables: Observable<A>[],
  ): void {
    this.noop.addBatchObservableCallback(callback, observables);
  }

  removeBatchObservableCallback<A extends MetricAttributes = MetricAttributes>(
    callback: BatchObservableCallback<A>,
    observables: Observable<A>[],
  ): void {
    this.noop.removeBatchObservableCallback(callback, observables);
  }

  /** The points recorded on instrument `name` (throws for an instrument never created). */
  points(name: string): Point[] {
    const instrument = this.instruments.get(name);
    if (instrument === undefined) throw new Error(`no instrument ${name}`);
    return instrument.points;
  }

  private register(name: string, kind: Instrument["kind"], options: MetricOptions | undefined): Instrument {
    if (this.instruments.has(name)) throw new Error(`instrument ${name} created twice`);
    const instrument: Instrument = { kind, options, points: [] };
    this.instruments.set(name, instrument);
    return instrument;
  }
}

const SECONDS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKENS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const AGENT_SECONDS = [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6];

const M = GEN_AI_METRICS;

/** Round recorded values to microseconds (ms / 1000 is not always exact in binary floating point). */
function rounded(points: Point[]): Point[] {
  return points.map((p) => ({ ...p, value: Math.round(p.value * 1e9) / 1e9 }));
}

function makeHarness(clock = new DeterministicClock()) {
  return { clock, harness: new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() }) };
}

describe("OtelMetrics instruments", () => {
  it("creates the GenAI instruments with their units, value types and recommended bucket boundaries", () => {
    const meter = new RecordingMeter();
    new OtelMetrics(meter);
    const shape = Object.fromEntries(
      [...meter.instruments].map(([name, i]) => [
        name,
        [i.kind, i.options?.unit, i.options?.valueType, i.options?.advice?.explicitBucketBoundaries],
      ]),
    );
    expect(shape).toEqual({
      "gen_ai.client.token.usage": ["histogram", "{token}", ValueType.INT, TOKENS],
      "gen_ai.client.operation.duration": ["histogram", "s", ValueType.DOUBLE, SECONDS],
      "gen_ai.client.operation.time_to_first_chunk": ["histogram", "s", ValueType.DOUBLE, SECONDS],
      "gen_ai.client.operation.time_per_output_chunk": ["histogram", "s", ValueType.DOUBLE, SECONDS],
      "gen_ai.invoke_agent.duration": ["histogram", "s", ValueType.DOUBLE, AGENT_SECONDS],
      "gen_ai.execute_tool.duration": ["histogram", "s", ValueType.DOUBLE, SECONDS],
      "tinyagents.run.cost": ["counter", "USD", ValueType.DOUBLE, undefined],
    });
    for (const instrument of meter.instruments.values()) expect(instrument.options?.description).toBeTruthy();
    expect(GEN_AI_METRIC_BUCKETS).toEqual({ tokens: TOKENS, seconds: SECONDS, agentSeconds: AGENT_SECONDS });
  });
});

describe("OtelMetrics from a real run", () => {
  it("measures attempts (a retried failure with error.type), tokens, the tool, the run and its cost", async () => {
    const { clock, harness } = makeHarness();
    const overloaded = new ProviderError({
      provider: "anthropic",
      message: "Overloaded",
      kind: "upstream_unhealthy",
      status: 529,
      providerCode: "overloaded_error",
    });
    const model = new ScriptedModel(
      [
        async () => {
          await clock.sleep(50);
          return overloaded;
        },
        async () => {
          await clock.sleep(120);
          return {
            toolCalls: [{ name: "lookup", id: "call-a", arguments: { city: "Paris" } }],
            usage: usage({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 60, cacheWriteTokens: 5 }),
          };
        },
        async () => {
          await clock.sleep(80);
          return { toolCalls: [], text: "It is sunny.", usage: usage({ inputTokens: 150, outputTokens: 8 }) };
        },
      ],
      { modelId: "claude-x" },
    );
    harness
      .registerModel("main", model, { pricing: { inputPerMillion: 1, outputPerMillion: 2 } })
      .registerTool(FakeTool.returning("lookup", "sunny", { delayMs: 30 }))
      .withPolicy({ retry: { initialBackoffMs: 250 } });
    const sink = new EventSink("run-1", { now: () => clock.now() });
    const meter = new RecordingMeter();
    const metrics = new OtelMetrics(meter, {
      agentName: "weather",
      attributes: { "deployment.environment.name": "test" },
    });
    metrics.attach(sink);
    const started = clock.now();

    await lowerLayer(harness).invoke(
      undefined,
      undefined,
      { runId: "run-1", threadId: "thread-9" },
      "weather?",
      {
        events: sink,
      },
    );

    const env = { "deployment.environment.name": "test" };
    const chat = {
      ...env,
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "claude-x",
    };
    const ok = { ...chat, "gen_ai.response.model": "claude-x" };
    expect(rounded(meter.points(M.operationDuration))).toEqual([
      { value: 0.05, attributes: { ...chat, "error.type": "overloaded_error" } },
      { value: 0.12, attributes: ok },
      { value: 0.08, attributes: ok },
    ]);
    // Input includes cached tokens (100 of which 60 cache reads and 5 cache writes).
    expect(meter.points(M.tokenUsage)).toEqual([
      { value: 100, attributes: { ...ok, "gen_ai.token.type": "input" } },
      { value: 10, attributes: { ...ok, "gen_ai.token.type": "output" } },
      { value: 150, attributes: { ...ok, "gen_ai.token.type": "input" } },
      { value: 8, attributes: { ...ok, "gen_ai.token.type": "output" } },
    ]);
    expect(rounded(meter.points(M.toolDuration))).toEqual([
      {
        value: 0.03,
        attributes: {
          ...env,
          "gen_ai.tool.name": "lookup",
          "gen_ai.tool.type": "function",
          "gen_ai.agent.name": "weather",
        },
      },
    ]);
    // 50 ms failed attempt + 250 ms backoff + 120 ms + 30 ms tool + 80 ms.
    expect(clock.now() - started).toBe(530);
    expect(rounded(meter.points(M.agentDuration))).toEqual([
      {
        value: 0.53,
        attributes: { ...env, "gen_ai.agent.name": "weather", "tinyagents.run.outcome": "completed" },
      },
    ]);
    const costAttributes = {
      ...env,
      "tinyagents.model.name": "main",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "claude-x",
      "gen_ai.agent.name": "weather",
    };
    expect(meter.points(M.runCost)).toEqual([
      { value: expect.closeTo((100 + 10 * 2) / 1e6, 12), attributes: costAttributes },
      { value: expect.closeTo((150 + 8 * 2) / 1e6, 12), attributes: costAttributes },
    ]);
    // Not streamed: no chunk timings. No conversation id or run id on any point (cardinality).
    expect(meter.points(M.timeToFirstChunk)).toEqual([]);
    expect(meter.points(M.timePerOutputChunk)).toEqual([]);
    const everything = JSON.stringify([...meter.instruments.values()].map((i) => i.points));
    expect(everything).not.toContain("thread-9");
    expect(everything).not.toContain("run-1");
    expect(metrics.openRuns).toBe(0);
    expect(metrics.openAttempts).toBe(0);
  });

  it("records time to first chunk and time per output chunk for a streamed attempt", async () => {
    const { clock, harness } = makeHarness();
    harness.registerModel(
      "main",
      StreamingMock.fromTextChunks(["Hel", "lo", "!"], {
        modelId: "mock-1",
        itemDelayMs: 40,
        usage: usage({ inputTokens: 12, outputTokens: 3 }),
      }),
    );
    const sink = new EventSink("run-s", { now: () => clock.now() });
    const meter = new RecordingMeter();
    sink.subscribe(createOtelMetricsListener(meter, { providerName: (p) => `acme.${p}` }));

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

    const chat = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "acme.streaming-mock",
      "gen_ai.request.model": "mock-1",
    };
    // Items every 40 ms: start, "Hel" (80 ms), "lo", "!", usage, finish (240 ms).
    expect(rounded(meter.points(M.timeToFirstChunk))).toEqual([{ value: 0.08, attributes: chat }]);
    expect(rounded(meter.points(M.timePerOutputChunk))).toEqual([
      { value: 0.04, attributes: chat },
      { value: 0.04, attributes: chat },
    ]);
    const ok = { ...chat, "gen_ai.response.model": "mock-1" };
    expect(rounded(meter.points(M.operationDuration))).toEqual([{ value: 0.24, attributes: ok }]);
    expect(meter.points(M.tokenUsage).map((p) => [p.value, p.attributes["gen_ai.token.type"]])).toEqual([
      [12, "input"],
      [3, "output"],
    ]);
    // No pricing registered or in the catalog for this model: no cost point.
    expect(meter.points(M.runCost)).toEqual([]);
  });

  it("measures a sub-agent run with its own agent name and the delegating tool", async () => {
    const clock = new DeterministicClock();
    const child = makeHarness(clock).harness;
    child.registerModel(
      "small",
      new ScriptedModel(
        [
          async () => {
            await clock.sleep(70);
            return "child answer";
          },
        ],
        { modelId: "mini" },
      ),
    );
    const { harness: parent } = makeHarness(clock);
    parent.registerModel(
      "big",
      new ScriptedModel([{ toolCalls: [{ name: "delegate", id: "call-d" }] }, "done"], { modelId: "big-1" }),
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
    const meter = new RecordingMeter();
    const metrics = new OtelMetrics(meter, {
      agentName: (run) => (run.depth === 0 ? "planner" : "worker"),
    });
    metrics.attach(sink);

    await lowerLayer(parent).invoke(undefined, undefined, { runId: "root-1" }, "go", { events: sink });

    expect(rounded(meter.points(M.agentDuration))).toEqual([
      { value: 0.07, attributes: { "gen_ai.agent.name": "worker", "tinyagents.run.outcome": "completed" } },
      { value: 0.07, attributes: { "gen_ai.agent.name": "planner", "tinyagents.run.outcome": "completed" } },
    ]);
    expect(rounded(meter.points(M.toolDuration))).toEqual([
      {
        value: 0.07,
        attributes: {
          "gen_ai.tool.name": "delegate",
          "gen_ai.tool.type": "function",
          "gen_ai.agent.name": "planner",
        },
      },
    ]);
    expect(meter.points(M.operationDuration).map((p) => p.attributes["gen_ai.request.model"])).toEqual([
      "big-1",
      "mini",
      "big-1",
    ]);
    expect(metrics.openRuns).toBe(0);
  });
});

describe("OtelMetrics edge cases (driven through a sink)", () => {
  const parent = { runId: "p", rootRunId: "p", depth: 0 };
  const kid = { runId: "k", parentRunId: "p", rootRunId: "p", depth: 1 };
  const started = (callId: string) =>
    ({
      type: "model.started",
      callId,
      model: "m",
      provider: "openai",
      providerModelId: "gpt-x",
      attempt: 1,
    }) as const;

  it("tool errors, cache hits, interrupted runs, and runs never seen starting", () => {
    let now = 1_000;
    const sink = new EventSink("p", { now: () => now });
    const meter = new RecordingMeter();
    const metrics = new OtelMetrics(meter);
    metrics.attach(sink);
    // A run this listener never saw start is ignored entirely.
    sink.emit({ runId: "ghost", rootRunId: "ghost", depth: 0 }, started("g-1"));
    sink.emit(
      { runId: "ghost", rootRunId: "ghost", depth: 0 },
      { type: "tool.completed", callId: "t", toolName: "x", durationMs: 5, isError: false, outputBytes: 1 },
    );
    expect(metrics.openRuns).toBe(0);

    sink.emit(parent, { type: "run.started", input: 1 });
    sink.emit(parent, started("c-1"));
    now += 3;
    sink.emit(parent, {
      type: "model.completed",
      callId: "c-1",
      model: "m",
      durationMs: 3,
      usage: usage({ inputTokens: 40, outputTokens: 4 }),
      finishReason: "stop",
      toolCalls: 0,
      servedFromCache: true,
    });
    sink.emit(parent, {
      type: "tool.completed",
      callId: "t-1",
      toolName: "search",
      durationMs: 20,
      isError: true,
      outputBytes: 10,
    });
    sink.emit(parent, {
      type: "tool.failed",
      callId: "t-2",
      toolName: "fetch",
      durationMs: 1500,
      error: { name: "TinyAgentsError", code: "timeout", message: "tool timed out" },
    });
    now += 997;
    sink.emit(parent, { type: "run.interrupted", reason: "approval required" });

    const chat = {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-x",
    };
    // A response served from the local cache: its duration is marked, its tokens are not billed.
    expect(meter.points(M.operationDuration)).toEqual([
      {
        value: 0.003,
        attributes: { ...chat, "gen_ai.response.model": "gpt-x", "tinyagents.model.served_from_cache": true },
      },
    ]);
    expect(meter.points(M.tokenUsage)).toEqual([]);
    expect(meter.points(M.toolDuration)).toEqual([
      {
        value: 0.02,
        attributes: {
          "gen_ai.tool.name": "search",
          "gen_ai.tool.type": "function",
          "error.type": "tool_error",
        },
      },
      {
        value: 1.5,
        attributes: { "gen_ai.tool.name": "fetch", "gen_ai.tool.type": "function", "error.type": "timeout" },
      },
    ]);
    expect(meter.points(M.agentDuration)).toEqual([
      { value: 1, attributes: { "tinyagents.run.outcome": "interrupted" } },
    ]);
    expect(metrics.openRuns).toBe(0);
  });

  it("a failed run records error.type and drops its open attempts and child runs unmeasured", () => {
    let now = 0;
    const sink = new EventSink("p", { now: () => now });
    const meter = new RecordingMeter();
    const metrics = new OtelMetrics(meter);
    metrics.attach(sink);
    sink.emit(parent, { type: "run.started", input: 1 });
    sink.emit(parent, started("p-1"));
    sink.emit(kid, { type: "run.started", input: 1 });
    sink.emit(kid, started("k-1"));
    sink.emit(kid, { type: "model.text_delta", callId: "k-1", text: "x" });
    expect([metrics.openRuns, metrics.openAttempts]).toEqual([2, 2]);
    now = 2_500;
    sink.emit(parent, {
      type: "run.failed",
      error: {
        name: "ProviderError",
        code: "provider",
        message: "quota",
        details: { providerCode: "insufficient_quota" },
      },
    });

    expect([metrics.openRuns, metrics.openAttempts]).toEqual([0, 0]);
    expect(meter.points(M.agentDuration)).toEqual([
      { value: 2.5, attributes: { "tinyagents.run.outcome": "failed", "error.type": "insufficient_quota" } },
    ]);
    expect(meter.points(M.operationDuration)).toEqual([]);
    expect(meter.points(M.timeToFirstChunk)).toHaveLength(1);
    // Late events of the dropped child are ignored.
    sink.emit(kid, {
      type: "model.failed",
      callId: "k-1",
      model: "m",
      durationMs: 1,
      attempt: 1,
      error: { name: "E", code: "provider", message: "x" },
    });
    sink.emit(kid, {
      type: "run.completed",
      modelCalls: 0,
      toolCalls: 0,
      usage: { calls: 0, ...usage({}) },
      cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    expect(meter.points(M.operationDuration)).toEqual([]);
    expect(meter.points(M.agentDuration)).toHaveLength(1);
  });

  it("keeps memory bounded over many runs", () => {
    let now = 0;
    const sink = new EventSink("bulk", { now: () => now });
    const meter = new RecordingMeter();
    const metrics = new OtelMetrics(meter);
    metrics.attach(sink);
    for (let i = 0; i < 500; i++) {
      const run = { runId: `r-${i}`, rootRunId: `r-${i}`, depth: 0 };
      sink.emit(run, { type: "run.started", input: 1 });
      sink.emit(run, started(`c-${i}`));
      now += 1;
      sink.emit(run, {
        type: "model.failed",
        callId: `c-${i}`,
        model: "m",
        durationMs: 1,
        attempt: 1,
        error: { name: "E", code: "timeout", message: "slow" },
      });
      sink.emit(run, { type: "run.failed", error: { name: "E", code: "timeout", message: "slow" } });
    }
    expect([metrics.openRuns, metrics.openAttempts]).toEqual([0, 0]);
    expect(meter.points(M.operationDuration)).toHaveLength(500);
  });
});

describe("optional peers stay out of the core (source graph)", () => {
  it("nothing the root entry imports, transitively, references @opentelemetry or the otel/langfuse folders", () => {
    const srcRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
    const seen = new Set<string>();
    const bare = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(file, "utf8");
      const pattern =
        /\b(?:import|export)\s(?:type\s)?[^'"`;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g;
      for (const match of code.matchAll(pattern)) {
        const specifier = (match[1] ?? match[2]) as string;
        if (specifier.startsWith(".")) visit(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
        else bare.add(specifier);
      }
    };
    visit(resolve(srcRoot, "index.ts"));
    expect(seen.size).toBeGreaterThan(50);
    expect([...bare].filter((s) => s.startsWith("@opentelemetry"))).toEqual([]);
    expect([...seen].filter((f) => /[/\\](otel|langfuse)[/\\]/.test(f))).toEqual([]);
  });
});
