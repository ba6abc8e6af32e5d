import type {
  ErrorSummary,
  FinishReason,
  JsonObject,
  JsonValue,
  MessageDelta,
  ModelResolutionSource,
  Usage,
  UsageTotals,
} from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";

/** How the loop recovered from a bad tool call. */
export type ToolRecovery = "fail" | "return_tool_error" | "rewrite" | "normalized";

/** The lifecycle hook a middleware event is about. */
export type MiddlewareHook =
  | "beforeAgent"
  | "afterAgent"
  | "beforeModel"
  | "afterModel"
  | "beforeTool"
  | "afterTool"
  | "wrapModelCall"
  | "wrapToolCall"
  | "onError";

/**
 * Every event the harness emits: a discriminated union on `type` (dotted names).
 * Plain JSON data. Correlation (run ids, depth, offset, time) lives on the `EventRecord` envelope.
 */
export type AgentEvent =
  | { type: "run.started"; threadId?: string; input: number }
  | { type: "run.completed"; modelCalls: number; toolCalls: number; usage: UsageTotals; cost: CostTotals }
  | { type: "run.failed"; error: ErrorSummary }
  | { type: "run.interrupted"; reason: string }
  | { type: "route.selected"; callId: string; model: string; source: ModelResolutionSource }
  | { type: "model.override_skipped"; callId: string; requested: string; resolved: string; reason: string }
  | {
      type: "model.started";
      callId: string;
      model: string;
      provider: string;
      providerModelId: string;
      attempt: number;
    }
  | { type: "model.delta"; callId: string; delta: MessageDelta }
  | {
      type: "model.completed";
      callId: string;
      model: string;
      durationMs: number;
      usage?: Usage;
      finishReason?: FinishReason;
      toolCalls: number;
      servedFromCache: boolean;
    }
  | {
      type: "model.failed";
      callId: string;
      model: string;
      durationMs: number;
      attempt: number;
      error: ErrorSummary;
    }
  | { type: "retry.scheduled"; callId: string; attempt: number; delayMs: number; error: ErrorSummary }
  | { type: "fallback.selected"; callId: string; from: string; to: string; error: ErrorSummary }
  | { type: "usage.recorded"; callId: string; model: string; usage: Usage }
  | { type: "cost.recorded"; callId: string; model: string; cost: CostTotals }
  | { type: "tool.started"; callId: string; toolName: string; arguments: JsonObject }
  | { type: "tool.progress"; callId: string; toolName: string; message: string; data?: JsonValue }
  | {
      type: "tool.completed";
      callId: string;
      toolName: string;
      durationMs: number;
      isError: boolean;
      outputBytes: number;
    }
  | { type: "tool.failed"; callId: string; toolName: string; durationMs: number; error: ErrorSummary }
  | {
      type: "tool.unknown";
      callId: string;
      requestedName: string;
      recovery: ToolRecovery;
      rewrittenTo?: string;
    }
  | { type: "tool.invalid_args"; callId: string; toolName: string; error: string; recovery: ToolRecovery }
  | { type: "middleware.started"; name: string; hook: MiddlewareHook }
  | { type: "middleware.completed"; name: string; hook: MiddlewareHook }
  | { type: "middleware.failed"; name: string; hook: MiddlewareHook; error: ErrorSummary }
  | { type: "limit.reached"; limit: string; value: number; count: number }
  | { type: "memory.loaded"; threadId: string; messages: number }
  | { type: "memory.saved"; threadId: string; messages: number }
  | { type: "state.updated"; step: number; messages: number }
  | { type: "control.applied"; control: "stop_with_final" | "interrupt"; detail: string };

/** The closed list of event types; a test proves each one is emitted by some code path. */
export type AgentEventType = AgentEvent["type"];

/** The event of a given type. */
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** An emitted event with its correlation envelope. */
export interface EventRecord<E extends AgentEvent = AgentEvent> {
  /** `{streamId}-evt-{offset}`; the stream id is the root run id. */
  id: string;
  /** Monotonic position in the sink's stream (shared by a run and its children). */
  offset: number;
  /** Epoch milliseconds from the run's clock. */
  ts: number;
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  depth: number;
  event: E;
}
