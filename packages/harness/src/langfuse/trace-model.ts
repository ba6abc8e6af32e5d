import type { ErrorSummary, JsonObject, JsonValue, Usage } from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";
import type { EventRecord } from "../events/agent-event.js";
import type { AgentNameOption } from "../otel/gen-ai-conventions.js";
import { TraceBuilder } from "./trace-builder.js";

/** Langfuse observation types this exporter produces. */
export type ObservationKind = "agent" | "generation" | "tool" | "event";

/** Langfuse observation levels. */
export type ObservationLevel = "DEBUG" | "DEFAULT" | "WARNING" | "ERROR";

/** An OTLP-encodable attribute value. */
export type AttributeScalar = string | number | boolean | string[];

/**
 * One observation of an exported run, transport-neutral: the OTLP encoder turns it into a span,
 * the legacy ingestion encoder into a `*-create` envelope. Times are epoch milliseconds.
 */
export interface TraceObservation {
  /** Stable within the trace (`run:{runId}`, `model:{runId}:{callId}`, `tool:{runId}:{callId}`, `event:{recordId}`). */
  key: string;
  kind: ObservationKind;
  name: string;
  runId: string;
  /** The parent observation's key; absent for a trace root. */
  parentKey?: string;
  startTs: number;
  endTs: number;
  level: ObservationLevel;
  statusMessage?: string;
  /** GenAI semantic-convention attributes (OTLP transport only). */
  attributes: Record<string, AttributeScalar>;
  metadata: JsonObject;
  /** Generations: the provider's model id (Langfuse matches prices on it). */
  model?: string;
  /** Generations: billed usage (absent for responses served from a cache). */
  usage?: Usage;
  /** Generations: cost computed by the harness's pricing catalog, when the model had pricing. */
  cost?: CostTotals;
  /** Generations: time of the first streamed delta. */
  completionStartTs?: number;
  /** Generations: request parameters (from `traceDetailsMiddleware`), plus `stream` when streamed. */
  modelParameters?: Record<string, AttributeScalar>;
  /**
   * Only with `captureContent`: generation prompt (system and input messages), tool arguments,
   * a run's first prompt.
   */
  input?: JsonValue;
  /** Only with `captureContent`: generation output messages (or streamed text), tool result, a run's last answer. */
  output?: JsonValue;
}

/** How the root run of a trace ended (absent while the records end before it did). */
export type TraceOutcome =
  | { status: "completed" }
  | { status: "failed"; error: ErrorSummary }
  | { status: "interrupted"; reason: string };

/** The observations of one run tree (one Langfuse trace). */
export interface TraceModel {
  rootRunId: string;
  /** The root run's thread id (the default Langfuse session id). */
  threadId?: string;
  /** The root run's agent name, when configured. */
  agentName?: string;
  startTs: number;
  endTs: number;
  /** How the root run ended, when its terminal record is in the input. */
  outcome?: TraceOutcome;
  /** Only with `captureContent`: the root run's first prompt and last answer. */
  input?: JsonValue;
  output?: JsonValue;
  /** In the order their first record appeared. */
  observations: TraceObservation[];
}

/** Options of {@link buildTraceModels}. */
export interface TraceModelOptions {
  agentName?: AgentNameOption;
  /**
   * Include content: prompts and answers (from `traceDetailsMiddleware({ captureContent: true })`),
   * tool arguments and results, streamed answer text and tool progress messages. Default off.
   */
  captureContent?: boolean;
}

/**
 * Turn a run's event records (a journal, a recorder, `EventRecorder.records`) into one
 * {@link TraceModel} per root run id, in emission order:
 *
 * - every run -> an `agent` observation; a child run nests under the parent run's newest open
 *   tool observation at the time it started (the tool that spawned it), else under the parent run;
 * - every model call -> one `generation` with model, parameters, usage, cost and completion start;
 *   its retries and fallbacks are attempts inside it (`metadata.attempts`, and `model.failed`,
 *   `retry.scheduled`, `fallback.selected` events under it), never extra generations;
 * - every executed tool call -> a `tool` observation; interesting events -> `event` observations.
 *
 * Failures give level ERROR and a status message. Records of a run whose `run.started` is not in
 * the input open it implicitly (metadata `startMissing`); observations still open at the end of the
 * input are closed at the last record's time with level WARNING (metadata `incomplete`).
 */
export function buildTraceModels(
  records: readonly EventRecord[],
  options: TraceModelOptions = {},
): TraceModel[] {
  const builders = new Map<string, TraceBuilder>();
  for (const record of records) {
    let builder = builders.get(record.rootRunId);
    if (builder === undefined) {
      builder = new TraceBuilder(record.rootRunId, options);
      builders.set(record.rootRunId, builder);
    }
    builder.add(record);
  }
  return [...builders.values()].map((builder) => builder.finish());
}
