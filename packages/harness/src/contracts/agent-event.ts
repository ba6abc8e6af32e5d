import type {
  ErrorSummary,
  FinishReason,
  JsonObject,
  JsonValue,
  ModelResolutionSource,
  Usage,
  UsageTotals,
} from "@tinyagents/inference";
import type { CompressionKind } from "./compression-record.js";
import type { CostTotals } from "./cost-totals.js";
import type { GraphNodeRef } from "./graph-node.js";
import type { SteeringCommandKind } from "./steering-command.js";
import type { ModelRequestDetails, ModelResponseDetails, ToolResultDetails } from "./trace-details.js";

/** How the loop recovered from a bad tool call. */
export type ToolRecovery = "fail" | "returnError" | "rewrite" | "normalized";

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
  // `tags`: the run's `RunConfig.tags`, when it has any (status records and listings show them).
  | { type: "run.started"; threadId?: string; input: number; tags?: string[] }
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
      /** The model's endpoint without credentials (`ChatModel.endpoint`), when it has one. */
      endpoint?: string;
      /** The request (`traceDetailsMiddleware`; on the first attempt the call starts). */
      details?: ModelRequestDetails;
    }
  // Streamed model output, one event kind per piece (streaming runs only; see `ModelDeltaEvent`).
  // `deltas`: set only on a journaled record that merges that many consecutive deltas of one
  // call (the journal's default delta coalescing); a live event is always one delta.
  | { type: "model.text_delta"; callId: string; text: string; deltas?: number }
  | { type: "model.reasoning_delta"; callId: string; text: string; signature?: string; deltas?: number }
  | { type: "model.redacted_reasoning"; callId: string; data: string }
  | {
      type: "model.tool_call_delta";
      callId: string;
      index: number;
      id?: string;
      name?: string;
      argumentsDelta?: string;
    }
  | {
      type: "model.completed";
      callId: string;
      model: string;
      durationMs: number;
      /** What the provider reported; not billed when `servedFromCache` (see `usage.recorded`). */
      usage?: Usage;
      finishReason?: FinishReason;
      toolCalls: number;
      servedFromCache: boolean;
      /**
       * The harness-computed cost of this attempt (as its `cost.recorded`), when the model has a
       * price and the call was billed; absent for an unpriced model (its cost is unknown, never
       * zero), a cache-served response, or a call that reported no usage.
       */
      cost?: CostTotals;
      /** The response id and, with content capture, the answer (`traceDetailsMiddleware`). */
      details?: ModelResponseDetails;
    }
  | {
      type: "model.failed";
      callId: string;
      model: string;
      durationMs: number;
      attempt: number;
      error: ErrorSummary;
      /**
       * The attempt failed after the provider may have billed it (a stream that had begun, a call
       * cancelled or timed out in flight) without reporting all its usage: the run's usage and
       * cost are lower bounds from here on (`unknown`), as for a `model.completed` without usage.
       */
      usageUnknown?: true;
      /**
       * What the attempt reported before it failed (a stream that broke after its usage chunk),
       * billed as its `usage.recorded` was; with `usageUnknown`, since it may not be all it used.
       */
      usage?: Usage;
      /** The cost of that usage (as its `cost.recorded`), when the model has a price. */
      cost?: CostTotals;
    }
  /**
   * An engine re-drove the run after the worker running this model call died: attempt `attempt`
   * never finished and will not (`reason`: "worker lost"); a new `model.started` may follow.
   */
  | { type: "model.abandoned"; callId: string; attempt: number; reason: string }
  | { type: "retry.scheduled"; callId: string; attempt: number; delayMs: number; error: ErrorSummary }
  | { type: "fallback.selected"; callId: string; from: string; to: string; error: ErrorSummary }
  /**
   * The billed usage of one attempt (never for a cache-served response), emitted just before the
   * attempt's `model.completed` / `model.failed`, which carries the same `usage` (also when the
   * run ends the attempt while it is in flight: its billing is settled first). An `"essential"`
   * journal leaves it out (see `JournalEvents`); readers count each attempt's usage once: from
   * `usage.recorded` when they see it, else from the terminal event (`CallBilling`).
   */
  | { type: "usage.recorded"; callId: string; model: string; usage: Usage }
  /** The cost of that usage, for a priced model; the terminal event carries it as `cost` too. */
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
      /** The tool's description and, with content capture, its result (`traceDetailsMiddleware`). */
      details?: ToolResultDetails;
    }
  | {
      type: "tool.failed";
      callId: string;
      toolName: string;
      durationMs: number;
      error: ErrorSummary;
      /** As on `tool.completed`, when the failure became an error result the model sees. */
      details?: ToolResultDetails;
    }
  /** As `model.abandoned`, for a tool call whose worker died while it ran. */
  | { type: "tool.abandoned"; callId: string; toolName: string; attempt: number; reason: string }
  | {
      type: "tool.unknown";
      callId: string;
      toolName: string;
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
  | { type: "control.applied"; control: "stopWithFinal" | "interrupt"; detail: string }
  // Built-in middleware (middleware/library) and the prompt-prefix guard of the middleware stack.
  | { type: "cache.layout_changed"; middleware: string; segment?: string; before: string; after: string }
  | { type: "tools.filtered"; by: string; excluded: string[]; remaining: string[] }
  | { type: "rate_limit.waited"; waitedMs: number; reason: "requests" | "tokens"; callId?: string }
  | {
      type: "tool.retry_scheduled";
      callId: string;
      toolName: string;
      attempt: number;
      delayMs: number;
      error: string;
    }
  | { type: "budget.reserved"; callId: string; estimatedInputTokens: number }
  | { type: "budget.reconciled"; callId: string; estimatedInputTokens: number; actualInputTokens: number }
  | { type: "budget.warning"; limit: string; used: number; max: number; reason: string }
  | { type: "budget.exceeded"; limit: string; used: number; max: number; blocked: boolean; reason: string }
  | {
      type: "approval.requested";
      approvalId: string;
      callId: string;
      toolName: string;
      /** `approvalArgumentsHash(toolName, arguments)`: an engine client approves exactly this call. */
      argumentsHash?: string;
    }
  | { type: "guardrail.tripped"; guardrail: string; stage: "input" | "output"; reason: string }
  | {
      type: "no_progress.detected";
      kind: "repeated_failure" | "repeated_batch";
      action: "nudge" | "halt";
      count: number;
      detail: string;
    }
  // Liveness (opt-in, `ContextOptions.durability`): the run is alive, owned by `ownerId`, until
  // `leaseUntil` (epoch ms, run clock; `leaseMs` after this event). Emitted at the start and by
  // the shared heartbeat timer.
  // `epoch`: the fencing epoch of a checkpointed run's owner (status stores keep the highest).
  | { type: "run.heartbeat"; ownerId: string; leaseMs: number; leaseUntil: number; epoch?: number }
  // Resumption of a paused run (emitted right after `run.started`).
  // `usage` / `cost`: the run's totals when it resumed (a status projection in a new process
  // continues from them instead of from zero).
  | {
      type: "run.resumed";
      modelCalls: number;
      toolCalls: number;
      pendingToolCalls: number;
      usage?: UsageTotals;
      cost?: CostTotals;
    }
  // Sub-agents: emitted on the PARENT's scope; `depth` is the child's depth.
  | { type: "subagent.started"; name: string; depth: number; childRunId: string }
  | {
      type: "subagent.completed";
      name: string;
      depth: number;
      childRunId: string;
      usage: UsageTotals;
      cost: CostTotals;
    }
  | { type: "subagent.failed"; name: string; depth: number; childRunId?: string; error: ErrorSummary }
  | { type: "subagent.reused"; name: string; turn: number }
  // Steering: one event per command of a drained batch.
  | { type: "steering.applied"; command: SteeringCommandKind; accepted: boolean }
  // Workspace sandbox.
  | { type: "workspace.prepared"; policyId: string; root: string }
  | { type: "workspace.violation"; path: string; reason: string }
  | { type: "workspace.cleanup"; policyId: string; root: string; error?: string }
  // Artifacts and large-result handoff.
  | { type: "artifact.stored"; artifactId: string; name: string; bytes: number }
  | { type: "handoff.offloaded"; callId: string; toolName: string; bytes: number; ref: string }
  // Context engineering: the local response cache, compression, structured-output re-asks.
  | { type: "cache.hit"; callId: string; model: string; key: string; coalesced: boolean }
  | { type: "cache.miss"; callId: string; model: string; key: string }
  | {
      type: "context.compressed";
      /** The middleware that compressed. */
      by: string;
      kind: CompressionKind;
      reason: string;
      /** Ids (`messageId`) of the messages removed, replaced or shortened. */
      sourceIds: string[];
      tokensBefore: number;
      tokensAfter: number;
      /** Cache segment ids whose content changed. */
      segments: string[];
      callId?: string;
    }
  | {
      type: "structured.reask";
      strategy: "native" | "tool";
      attempt: number;
      maxReasks: number;
      issues: string[];
    }
  // Trace details as journals written by earlier versions carry them: three records per step of their
  // own. The same details now ride on `model.started`, `model.completed` and `tool.completed` /
  // `tool.failed` (`details`); the exporters, the inspector and replay read both
  // (`separateTraceDetails` turns a folded record back into this sequence). Only `tool.result` is
  // still emitted: for a tool call's attempt after the one that ended it (a wrap such as
  // `toolRetryMiddleware` ran the tool again), whose result is the one the model sees.
  | {
      type: "model.request";
      callId: string;
      /** Request options: temperature, maxTokens, topP, seed, stop, toolChoice, parallelToolCalls, ... */
      parameters: JsonObject;
      /** `gen_ai.system_instructions` parts (content capture only). */
      systemInstructions?: JsonValue[];
      /** `gen_ai.input.messages` (content capture only). */
      inputMessages?: JsonValue[];
      /** `gen_ai.tool.definitions` (content capture only). */
      toolDefinitions?: JsonValue[];
      /**
       * The request's full response format, schema included (content capture only; `parameters`
       * carries only its type). Replay (`exportRunAsTest`) compares it call by call.
       */
      responseFormat?: JsonValue;
      /**
       * The stable-prefix fingerprint: SHA-256 of the tool declarations and the messages before
       * the first history segment (what a provider's prompt cache keys on). Equal on two calls:
       * the cacheable prefix was preserved; different: it was busted.
       */
      stablePrefix?: string;
    }
  | {
      type: "model.response";
      callId: string;
      /** The provider's response id, when it returned one. */
      responseId?: string;
      finishReason?: FinishReason;
      /** `gen_ai.output.messages` (content capture only). */
      outputMessages?: JsonValue[];
    }
  | {
      type: "tool.result";
      callId: string;
      toolName: string;
      description?: string;
      isError: boolean;
      /** `gen_ai.tool.call.result`: the result's content (content capture only). */
      result?: JsonValue;
    }
  // Observability: a queued sink (journal, JSONL) lost observations; offsets are of the lost ones.
  | {
      type: "journal.dropped";
      sink: string;
      dropped: number;
      fromOffset: number;
      toOffset: number;
      reason: "queue_full" | "write_failed";
    };

/** A piece of streamed model output: text, reasoning, redacted reasoning or a tool-call fragment. */
export type ModelDeltaEvent = Extract<
  AgentEvent,
  {
    type: "model.text_delta" | "model.reasoning_delta" | "model.redacted_reasoning" | "model.tool_call_delta";
  }
>;

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
  /**
   * Epoch milliseconds from the run's clock. On the real clock a streamed delta may carry the
   * reading of a record up to 15 records before it in the same event-loop turn (`EventSink.emitDelta`);
   * timestamps never go backwards from one record to the next.
   */
  ts: number;
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  depth: number;
  /** The graph and node whose call emitted this (set only on a graph node's own run). */
  graphNode?: GraphNodeRef;
  event: E;
}
