import type { ErrorSummary, JsonObject, JsonValue, Usage } from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";
import type { AgentNameOption } from "../otel/gen-ai-conventions.js";

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

/** Options of `buildTraceModels`. */
export interface TraceModelOptions {
  agentName?: AgentNameOption;
  /**
   * Include content: prompts and answers (from `traceDetailsMiddleware({ captureContent: true })`),
   * tool arguments and results, streamed answer text and tool progress messages. Default off.
   * Content needs BOTH this and `traceDetailsMiddleware({ captureContent: true })`: with only one
   * set, a one-time warning names the missing half (see `onContentWarning`).
   */
  captureContent?: boolean;
  /**
   * Receives the warning that only one of the two content switches is on (default:
   * `process.emitWarning`, code `TINYAGENTS_CONTENT_CAPTURE`, once per process).
   */
  onContentWarning?: (message: string) => void;
}
