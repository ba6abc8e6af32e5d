import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MetricOptions,
  ValueType,
} from "@opentelemetry/api";
import type { AgentEventOf, EventRecord, ModelDeltaEvent } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import type { EventListener, EventSink } from "../events/event-sink.js";
import { CallBilling, type ModelAttemptEnd } from "../observability/call-billing.js";
import {
  errorType,
  GEN_AI,
  genAiProviderName,
  genAiTokenCounts,
  resolveAgentName,
  TINYAGENTS_ATTR,
} from "./gen-ai-conventions.js";
import type { OtelMetricsOptions } from "./otel-options.js";

/**
 * Metric names. The `gen_ai.*` ones are the GenAI semantic conventions' (status: Development):
 * client metrics per model-call attempt, and the agent and tool durations, which the conventions
 * define as their own instruments (`gen_ai.invoke_agent.duration`, `gen_ai.execute_tool.duration`)
 * rather than as `gen_ai.client.operation.duration` with another operation name (that one is for
 * "a single provider-facing client operation"). `tinyagents.run.cost` is ours: the conventions
 * have no cost metric.
 */
export const GEN_AI_METRICS = {
  tokenUsage: "gen_ai.client.token.usage",
  operationDuration: "gen_ai.client.operation.duration",
  timeToFirstChunk: "gen_ai.client.operation.time_to_first_chunk",
  timePerOutputChunk: "gen_ai.client.operation.time_per_output_chunk",
  agentDuration: "gen_ai.invoke_agent.duration",
  toolDuration: "gen_ai.execute_tool.duration",
  runCost: "tinyagents.run.cost",
} as const;

/** The explicit histogram bucket boundaries the conventions recommend (passed as instrument advice). */
export const GEN_AI_METRIC_BUCKETS = {
  /** `gen_ai.client.token.usage`: powers of 4 from 1 to 4^13. */
  tokens: [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864],
  /** Client operation durations, time to first chunk, time per output chunk, tool durations (seconds). */
  seconds: [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92],
  /** `gen_ai.invoke_agent.duration` (seconds). */
  agentSeconds: [0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 51.2, 102.4, 204.8, 409.6],
} as const satisfies Record<string, readonly number[]>;

/** An open model-call attempt: its base attributes and the time of its latest streamed chunk. */
interface AttemptState {
  /** operation, provider, request model (and the constant attributes). */
  base: Attributes;
  /** The `model.started` record's time. */
  startedAt: number;
  lastChunkAt: number | undefined;
}

/** A run seen starting and not yet ended. */
interface RunState {
  parentRunId: string | undefined;
  startedAt: number;
  agentName: string | undefined;
  /** Open attempts by call id (a retry reuses the call id after the previous attempt ended). */
  attempts: Map<string, AttemptState>;
  /** Open child runs (dropped with this run so nothing outlives it). */
  children: Set<string>;
  /** Each attempt's cost once: its `cost.recorded`, or its end's `cost` (an "essential" journal). */
  billing: CallBilling;
}

interface Instruments {
  tokenUsage: Histogram;
  operationDuration: Histogram;
  timeToFirstChunk: Histogram;
  timePerOutputChunk: Histogram;
  agentDuration: Histogram;
  toolDuration: Histogram;
  runCost: Counter;
}

/**
 * Turns a live harness event stream into OpenTelemetry metrics that follow the GenAI semantic
 * conventions. Per model-call attempt (a retried call gives one measurement per attempt):
 *
 * - `gen_ai.client.operation.duration` (s): `model.started` -> `model.completed` / `model.failed`
 *   (the events' `durationMs`), with `error.type` on failure;
 * - `gen_ai.client.token.usage` ({token}): two records (`gen_ai.token.type` `input` and `output`)
 *   per attempt that reported billed usage; input includes cached tokens; responses served from
 *   the local response cache are not billed and not counted;
 * - `gen_ai.client.operation.time_to_first_chunk` and `.time_per_output_chunk` (s): streamed
 *   attempts only (from `model.*_delta` events).
 *
 * These carry `gen_ai.operation.name` (`chat`), `gen_ai.provider.name`, `gen_ai.request.model`,
 * and `gen_ai.response.model` once the attempt completed. A response served from the local cache
 * adds `tinyagents.model.served_from_cache: true` to its duration.
 *
 * Per tool call, `gen_ai.execute_tool.duration` (s) with `gen_ai.tool.name`, `gen_ai.tool.type`
 * and `error.type` (`tool_error` for an error result). Per run, `gen_ai.invoke_agent.duration` (s)
 * from `run.started` to its end, with `tinyagents.run.outcome` (`completed` | `failed` |
 * `interrupted`) and `error.type` on failure. Per priced attempt, the counter
 * `tinyagents.run.cost` (USD) from `cost.recorded` (or, in an `"essential"` journal, the attempt's
 * `model.completed` / `model.failed` `cost`; once per attempt), with the provider, request model and
 * `tinyagents.model.name`. Agent, tool and cost measurements carry `gen_ai.agent.name` when
 * `agentName` is configured.
 *
 * Only runs seen starting are measured. Work per event is O(1); state is one entry per open run
 * and per open attempt, dropped when the attempt or the run ends (a run's open attempts and
 * child runs are dropped with it, unmeasured).
 *
 * ```ts
 * const metrics = new OtelMetrics(meterProvider.getMeter("my-app"), { agentName: "support" });
 * metrics.attach(sink); // the sink passed to agent.run(input, { events: sink })
 * ```
 */
export class OtelMetrics {
  /** The listener to subscribe to an `EventSink` (`sink.subscribe(metrics.listener)`). */
  readonly listener: EventListener = (record) => this.handle(record);
  private readonly instruments: Instruments;
  private readonly options: OtelMetricsOptions;
  private readonly constant: Attributes;
  private readonly runs = new Map<string, RunState>();

  constructor(meter: Meter, options: OtelMetricsOptions = {}) {
    this.options = options;
    this.constant = { ...options.attributes };
    const seconds = (description: string, buckets: readonly number[]): MetricOptions => ({
      description,
      unit: "s",
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: [...buckets] },
    });
    this.instruments = {
      tokenUsage: meter.createHistogram(GEN_AI_METRICS.tokenUsage, {
        description: "Number of input and output tokens used.",
        unit: "{token}",
        valueType: ValueType.INT,
        advice: { explicitBucketBoundaries: [...GEN_AI_METRIC_BUCKETS.tokens] },
      }),
      operationDuration: meter.createHistogram(
        GEN_AI_METRICS.operationDuration,
        seconds("GenAI operation duration.", GEN_AI_METRIC_BUCKETS.seconds),
      ),
      timeToFirstChunk: meter.createHistogram(
        GEN_AI_METRICS.timeToFirstChunk,
        seconds("Time to receive the first chunk of a streamed response.", GEN_AI_METRIC_BUCKETS.seconds),
      ),
      timePerOutputChunk: meter.createHistogram(
        GEN_AI_METRICS.timePerOutputChunk,
        seconds(
          "Time per output chunk after the first one (from the previous chunk).",
          GEN_AI_METRIC_BUCKETS.seconds,
        ),
      ),
      agentDuration: meter.createHistogram(
        GEN_AI_METRICS.agentDuration,
        seconds("The end-to-end duration of a single agent invocation.", GEN_AI_METRIC_BUCKETS.agentSeconds),
      ),
      toolDuration: meter.createHistogram(
        GEN_AI_METRICS.toolDuration,
        seconds("The duration of a single tool execution.", GEN_AI_METRIC_BUCKETS.seconds),
      ),
      runCost: meter.createCounter(GEN_AI_METRICS.runCost, {
        description: "Cost of model calls computed by the harness from its pricing, in US dollars.",
        unit: "USD",
        valueType: ValueType.DOUBLE,
      }),
    };
  }

  /** Subscribe to `sink`; returns a function that unsubscribes. */
  attach(sink: EventSink): () => void {
    return sink.subscribe(this.listener);
  }

  /** Runs tracked right now (0 once every observed run has ended). */
  get openRuns(): number {
    return this.runs.size;
  }

  /** Model-call attempts tracked right now (0 once every observed run has ended). */
  get openAttempts(): number {
    let count = 0;
    for (const run of this.runs.values()) count += run.attempts.size;
    return count;
  }

  /** Handle one event record (what {@link listener} does). */
  handle(record: EventRecord): void {
    const event = record.event;
    switch (event.type) {
      case "run.started":
        this.startRun(record);
        break;
      case "model.started":
        this.startAttempt(record, event);
        break;
      case "model.text_delta":
      case "model.reasoning_delta":
      case "model.redacted_reasoning":
      case "model.tool_call_delta":
        this.chunk(record, event);
        break;
      case "model.completed":
        this.endCost(record, event);
        this.completeAttempt(record, event);
        break;
      case "model.failed":
        this.endCost(record, event);
        this.failAttempt(record, event);
        break;
      case "cost.recorded":
        this.runs.get(record.runId)?.billing.costRecorded(event.callId);
        this.cost(record, event.callId, event.model, event.cost);
        break;
      case "tool.completed":
      case "tool.failed":
        this.tool(record, event);
        break;
      case "run.completed":
      case "run.failed":
      case "run.interrupted":
        this.endRun(record, event);
        break;
      default:
        break;
    }
  }

  private startRun(record: EventRecord): void {
    if (this.runs.has(record.runId)) return;
    const agentName = resolveAgentName(this.options.agentName, {
      runId: record.runId,
      depth: record.depth,
      ...(record.parentRunId === undefined ? {} : { parentRunId: record.parentRunId }),
    });
    this.runs.set(record.runId, {
      parentRunId: record.parentRunId,
      startedAt: record.ts,
      agentName,
      attempts: new Map(),
      children: new Set(),
      billing: new CallBilling(),
    });
    if (record.parentRunId !== undefined) this.runs.get(record.parentRunId)?.children.add(record.runId);
  }

  private startAttempt(record: EventRecord, event: AgentEventOf<"model.started">): void {
    const run = this.runs.get(record.runId);
    if (run === undefined) return;
    run.billing.attemptStarted(event.callId);
    const provider = (this.options.providerName ?? genAiProviderName)(event.provider);
    run.attempts.set(event.callId, {
      base: {
        ...this.constant,
        [GEN_AI.operationName]: "chat",
        [GEN_AI.providerName]: provider,
        [GEN_AI.requestModel]: event.providerModelId,
      },
      startedAt: record.ts,
      lastChunkAt: undefined,
    });
  }

  private chunk(record: EventRecord, event: ModelDeltaEvent): void {
    const attempt = this.runs.get(record.runId)?.attempts.get(event.callId);
    if (attempt === undefined) return;
    const previous = attempt.lastChunkAt;
    attempt.lastChunkAt = record.ts;
    if (previous === undefined) {
      this.instruments.timeToFirstChunk.record(seconds(record.ts - attempt.startedAt), attempt.base);
    } else {
      this.instruments.timePerOutputChunk.record(seconds(record.ts - previous), attempt.base);
    }
  }

  private completeAttempt(record: EventRecord, event: AgentEventOf<"model.completed">): void {
    const attempt = this.takeAttempt(record.runId, event.callId);
    if (attempt === undefined) return;
    const attributes: Attributes = {
      ...attempt.base,
      [GEN_AI.responseModel]: attempt.base[GEN_AI.requestModel],
    };
    if (event.servedFromCache) attributes[TINYAGENTS_ATTR.servedFromCache] = true;
    this.instruments.operationDuration.record(seconds(event.durationMs), attributes);
    // Only billed tokens (the conventions: "instrumentation MUST report billable tokens").
    if (event.usage === undefined || event.servedFromCache) return;
    const tokens = genAiTokenCounts(event.usage);
    this.instruments.tokenUsage.record(tokens.input, { ...attributes, [GEN_AI.tokenType]: "input" });
    this.instruments.tokenUsage.record(tokens.output, { ...attributes, [GEN_AI.tokenType]: "output" });
  }

  private failAttempt(record: EventRecord, event: AgentEventOf<"model.failed">): void {
    const attempt = this.takeAttempt(record.runId, event.callId);
    if (attempt === undefined) return;
    this.instruments.operationDuration.record(seconds(event.durationMs), {
      ...attempt.base,
      [GEN_AI.errorType]: errorType(event.error),
    });
  }

  /** The cost an attempt's end carries that no `cost.recorded` of it did (see `CallBilling`). */
  private endCost(record: EventRecord, event: ModelAttemptEnd): void {
    const cost = this.runs.get(record.runId)?.billing.costOf(event);
    if (cost !== undefined) this.cost(record, event.callId, event.model, cost);
  }

  /** One attempt's cost, measured while the attempt is still open (its attributes). */
  private cost(record: EventRecord, callId: string, model: string, cost: CostTotals): void {
    const run = this.runs.get(record.runId);
    if (run === undefined) return;
    const total = cost.total;
    if (!Number.isFinite(total) || total < 0) return;
    const base = run.attempts.get(callId)?.base;
    const attributes: Attributes = { ...this.constant, [TINYAGENTS_ATTR.modelName]: model };
    if (base !== undefined) {
      attributes[GEN_AI.providerName] = base[GEN_AI.providerName];
      attributes[GEN_AI.requestModel] = base[GEN_AI.requestModel];
    }
    if (run.agentName !== undefined) attributes[GEN_AI.agentName] = run.agentName;
    this.instruments.runCost.add(total, attributes);
  }

  private tool(
    record: EventRecord,
    event: AgentEventOf<"tool.completed"> | AgentEventOf<"tool.failed">,
  ): void {
    const run = this.runs.get(record.runId);
    if (run === undefined) return;
    const attributes: Attributes = {
      ...this.constant,
      [GEN_AI.toolName]: event.toolName,
      [GEN_AI.toolType]: "function",
    };
    if (run.agentName !== undefined) attributes[GEN_AI.agentName] = run.agentName;
    if (event.type === "tool.failed") attributes[GEN_AI.errorType] = errorType(event.error);
    else if (event.isError) attributes[GEN_AI.errorType] = "tool_error";
    this.instruments.toolDuration.record(seconds(event.durationMs), attributes);
  }

  private endRun(
    record: EventRecord,
    event: AgentEventOf<"run.completed"> | AgentEventOf<"run.failed"> | AgentEventOf<"run.interrupted">,
  ): void {
    const run = this.runs.get(record.runId);
    if (run === undefined) return;
    const outcome =
      event.type === "run.completed" ? "completed" : event.type === "run.failed" ? "failed" : "interrupted";
    const attributes: Attributes = { ...this.constant, [TINYAGENTS_ATTR.runOutcome]: outcome };
    if (run.agentName !== undefined) attributes[GEN_AI.agentName] = run.agentName;
    if (event.type === "run.failed") attributes[GEN_AI.errorType] = errorType(event.error);
    this.instruments.agentDuration.record(seconds(record.ts - run.startedAt), attributes);
    this.dropRun(record.runId);
  }

  /** Forget a run, its open attempts and (recursively) its open child runs. */
  private dropRun(runId: string): void {
    const run = this.runs.get(runId);
    if (run === undefined) return;
    this.runs.delete(runId);
    for (const child of run.children) this.dropRun(child);
    if (run.parentRunId !== undefined) this.runs.get(run.parentRunId)?.children.delete(runId);
  }

  private takeAttempt(runId: string, callId: string): AttemptState | undefined {
    const attempts = this.runs.get(runId)?.attempts;
    const attempt = attempts?.get(callId);
    if (attempt !== undefined) attempts?.delete(callId);
    return attempt;
  }
}

/**
 * A listener that turns a live event stream into GenAI metrics (see {@link OtelMetrics}).
 *
 * ```ts
 * sink.subscribe(createOtelMetricsListener(metrics.getMeter("my-app"), { agentName: "support" }));
 * ```
 */
export function createOtelMetricsListener(meter: Meter, options: OtelMetricsOptions = {}): EventListener {
  return new OtelMetrics(meter, options).listener;
}

/** Milliseconds -> seconds, never negative (histograms reject negative values). */
function seconds(ms: number): number {
  return Math.max(0, ms) / 1000;
}
