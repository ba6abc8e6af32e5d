import type { ErrorSummary, JsonObject } from "@tinyagents/inference";
import type { EventRecord } from "../contracts/agent-event.js";
import { addCost, type CostTotals } from "../cost/cost.js";
import { type CallBilling, callBillingOf, type ModelAttemptEnd } from "../observability/call-billing.js";
import { ContentCaptureCheck } from "../observability/content-capture-check.js";
import { separateTraceDetails } from "../observability/trace-details-records.js";
import { agentSpanName, GEN_AI, resolveAgentName, TINYAGENTS_ATTR } from "../otel/gen-ai-conventions.js";
import {
  chatObservation,
  closeIncomplete,
  completeChatObservation,
  eventObservation,
  fail,
  finishToolObservation,
  nextAttempt,
  type OpenRun,
  requestInput,
  respondChatObservation,
  toolObservation,
  toolResultObservation,
} from "./call-observations.js";
import { EXPORTED_EVENT_LEVELS } from "./exported-events.js";
import type { TraceModel, TraceModelOptions, TraceObservation, TraceOutcome } from "./trace-model.js";

/**
 * The observation an event nests under: a tool call's progress under the tool, a model call's
 * failed attempts, retries and fallbacks under its generation, the rest under the run.
 */
function eventParent(run: OpenRun, record: EventRecord): TraceObservation {
  const event = record.event;
  switch (event.type) {
    case "tool.progress":
      return run.tools.get(event.callId) ?? run.obs;
    case "model.failed":
    case "retry.scheduled":
    case "fallback.selected":
      return run.chats.get(event.callId)?.obs ?? run.obs;
    default:
      return run.obs;
  }
}

/** Builds the {@link TraceModel} of one root run from its records (see `buildTraceModels`). */
export class TraceBuilder {
  private readonly rootRunId: string;
  private readonly agentNameOption: TraceModelOptions["agentName"];
  private readonly capture: boolean;
  /** Warns when only one of the two content switches is on. */
  private readonly contentCheck: ContentCaptureCheck;
  /** A `model.request` was seen: `traceDetailsMiddleware` is registered. */
  private described = false;
  private readonly observations: TraceObservation[] = [];
  private readonly runs = new Map<string, OpenRun>();
  private readonly ended = new Set<string>();
  /** Per run: each attempt's cost once, from its `cost.recorded` or from its end (see `CallBilling`). */
  private readonly billing = new Map<string, CallBilling>();
  private threadId: string | undefined;
  private agentName: string | undefined;
  private outcome: TraceOutcome | undefined;
  private startTs = Number.POSITIVE_INFINITY;
  private lastTs = Number.NEGATIVE_INFINITY;

  constructor(rootRunId: string, options: TraceModelOptions) {
    this.rootRunId = rootRunId;
    this.agentNameOption = options.agentName;
    this.capture = options.captureContent === true;
    this.contentCheck = new ContentCaptureCheck(
      "the Langfuse exporter",
      this.capture,
      options.onContentWarning,
    );
  }

  /** The cost attempt end `end` of run `runId` adds that no `cost.recorded` of it did. */
  private attemptCost(runId: string, end: ModelAttemptEnd): CostTotals | undefined {
    const billing = this.billing.get(runId);
    return billing === undefined ? end.cost : billing.costOf(end);
  }

  /** Fold one record in (records of runs that already ended are ignored). */
  add(record: EventRecord): void {
    // Trace details folded into a call's records are read as the separate records they replace.
    const separate = separateTraceDetails(record);
    if (separate === undefined) this.addOne(record);
    else for (const part of separate) this.addOne(part);
  }

  private addOne(record: EventRecord): void {
    this.startTs = Math.min(this.startTs, record.ts);
    this.lastTs = Math.max(this.lastTs, record.ts);
    if (this.ended.has(record.runId)) return;
    const event = record.event;
    if (event.type === "run.started") {
      if (!this.runs.has(record.runId)) this.startRun(record, event.threadId, event.input);
      return;
    }
    const run = this.runs.get(record.runId) ?? this.startRun(record, undefined, undefined);
    const level = EXPORTED_EVENT_LEVELS[event.type];
    if (level !== undefined)
      this.observe(eventObservation(eventParent(run, record), record, level, this.capture));
    switch (event.type) {
      case "model.request":
        this.contentCheck.request(event);
        this.described = true;
        run.requests.set(event.callId, event);
        if (this.capture && run.obs.input === undefined) run.obs.input = requestInput(event);
        break;
      case "model.started": {
        this.billing.get(record.runId)?.attemptStarted(event.callId);
        const open = run.chats.get(event.callId);
        if (open !== undefined) {
          nextAttempt(open, event);
          break;
        }
        const obs = this.observe(chatObservation(run, record, event, this.capture));
        run.chats.set(event.callId, { obs, text: "" });
        run.generations.set(event.callId, obs);
        break;
      }
      case "model.text_delta":
      case "model.reasoning_delta":
      case "model.redacted_reasoning":
      case "model.tool_call_delta": {
        const chat = run.chats.get(event.callId);
        if (chat === undefined) break;
        chat.obs.completionStartTs ??= record.ts;
        if (this.capture && event.type === "model.text_delta") chat.text += event.text;
        break;
      }
      case "cost.recorded": {
        callBillingOf(this.billing, record.runId).costRecorded(event.callId);
        const chat = run.chats.get(event.callId);
        if (chat !== undefined) addAttemptCost(chat.obs, event.cost);
        break;
      }
      case "model.completed": {
        this.contentCheck.completed(this.described);
        const cost = this.attemptCost(record.runId, event);
        const chat = run.chats.get(event.callId);
        if (chat === undefined) break;
        run.chats.delete(event.callId);
        // The generation's cost is its attempts' (an "essential" journal has no `cost.recorded`:
        // each attempt's end carries the same cost).
        addAttemptCost(chat.obs, cost);
        completeChatObservation(chat, record, event, this.capture);
        break;
      }
      case "model.failed": {
        // Not the call's end yet: a retry or a fallback may follow (see `endRun`).
        const cost = this.attemptCost(record.runId, event);
        const chat = run.chats.get(event.callId);
        if (chat === undefined) break;
        chat.failure = { error: event.error, ts: record.ts };
        addAttemptCost(chat.obs, cost);
        break;
      }
      case "model.response": {
        const obs = run.generations.get(event.callId);
        if (obs === undefined) break;
        respondChatObservation(obs, event, this.capture);
        if (this.capture && event.outputMessages !== undefined) run.obs.output = event.outputMessages;
        break;
      }
      case "tool.result": {
        const obs = run.toolsByCall.get(event.callId);
        if (obs !== undefined) toolResultObservation(obs, event, this.capture);
        break;
      }
      case "tool.started": {
        const obs = this.observe(toolObservation(run, record, event, this.capture));
        run.tools.delete(event.callId);
        run.tools.set(event.callId, obs);
        run.toolsByCall.set(event.callId, obs);
        break;
      }
      case "tool.completed":
      case "tool.failed": {
        const tool = run.tools.get(event.callId);
        if (tool === undefined) break;
        run.tools.delete(event.callId);
        finishToolObservation(tool, record, event);
        break;
      }
      case "run.completed":
        Object.assign(run.obs.metadata, {
          modelCalls: event.modelCalls,
          toolCalls: event.toolCalls,
          usage: { ...event.usage, calls: event.usage.calls } as unknown as JsonObject,
          cost: { ...event.cost },
        });
        this.endRun(run, record.ts, undefined, false);
        if (record.runId === this.rootRunId) this.outcome = { status: "completed" };
        break;
      case "run.failed":
        fail(run.obs, event.error);
        this.endRun(run, record.ts, event.error, false);
        if (record.runId === this.rootRunId) this.outcome = { status: "failed", error: event.error };
        break;
      case "run.interrupted":
        run.obs.level = "WARNING";
        run.obs.statusMessage = `interrupted: ${event.reason}`;
        this.endRun(run, record.ts, undefined, false);
        if (record.runId === this.rootRunId) this.outcome = { status: "interrupted", reason: event.reason };
        break;
      default:
        break;
    }
  }

  /** The finished model; observations still open are closed at the last record's time. */
  finish(): TraceModel {
    for (const run of [...this.runs.values()]) {
      if (!this.runs.has(run.obs.runId)) continue;
      if (run.parentRunId === undefined || !this.runs.has(run.parentRunId)) {
        this.endRun(run, this.lastTs, undefined, true);
      }
    }
    const model: TraceModel = {
      rootRunId: this.rootRunId,
      startTs: this.startTs,
      endTs: this.lastTs,
      observations: this.observations,
    };
    if (this.threadId !== undefined) model.threadId = this.threadId;
    if (this.agentName !== undefined) model.agentName = this.agentName;
    if (this.outcome !== undefined) model.outcome = this.outcome;
    const root = this.observations.find((obs) => obs.key === `run:${this.rootRunId}`);
    if (root?.input !== undefined) model.input = root.input;
    if (root?.output !== undefined) model.output = root.output;
    return model;
  }

  /**
   * Open a run's `agent` observation: under the parent run's newest open tool (the one that
   * spawned it), else the parent run, else at the trace root. Without `run.started` in the
   * records (`input` undefined) the run opens at its first record, marked `startMissing`.
   */
  private startRun(record: EventRecord, threadId: string | undefined, input: number | undefined): OpenRun {
    const parent = record.parentRunId === undefined ? undefined : this.runs.get(record.parentRunId);
    let spawner: TraceObservation | undefined;
    if (parent !== undefined) for (const tool of parent.tools.values()) spawner = tool;
    const identity = {
      runId: record.runId,
      depth: record.depth,
      ...(record.parentRunId === undefined ? {} : { parentRunId: record.parentRunId }),
    };
    const agentName = resolveAgentName(this.agentNameOption, identity);
    const metadata: JsonObject = { ...identity, rootRunId: record.rootRunId };
    const attributes: TraceObservation["attributes"] = {
      [GEN_AI.operationName]: "invoke_agent",
      [TINYAGENTS_ATTR.runId]: record.runId,
      [TINYAGENTS_ATTR.rootRunId]: record.rootRunId,
      [TINYAGENTS_ATTR.depth]: record.depth,
    };
    if (record.parentRunId !== undefined) attributes[TINYAGENTS_ATTR.parentRunId] = record.parentRunId;
    if (agentName !== undefined) attributes[GEN_AI.agentName] = agentName;
    if (threadId !== undefined) {
      metadata.threadId = threadId;
      attributes[GEN_AI.conversationId] = threadId;
    }
    if (input === undefined) metadata.startMissing = true;
    else metadata.inputMessages = input;
    const parentKey = spawner?.key ?? parent?.obs.key;
    const obs = this.observe({
      key: `run:${record.runId}`,
      kind: "agent",
      name: agentSpanName(agentName),
      runId: record.runId,
      ...(parentKey === undefined ? {} : { parentKey }),
      startTs: record.ts,
      endTs: record.ts,
      level: "DEFAULT",
      attributes,
      metadata,
    });
    const run: OpenRun = {
      obs,
      parentRunId: record.parentRunId,
      chats: new Map(),
      generations: new Map(),
      toolsByCall: new Map(),
      requests: new Map(),
      tools: new Map(),
      children: new Set(),
    };
    this.runs.set(record.runId, run);
    parent?.children.add(record.runId);
    if (record.runId === this.rootRunId) {
      this.threadId = threadId;
      this.agentName = agentName;
    }
    return run;
  }

  /** Close a run's open children, generations and tools, then the run itself. */
  private endRun(run: OpenRun, ts: number, failure: ErrorSummary | undefined, incomplete: boolean): void {
    for (const childId of run.children) {
      const child = this.runs.get(childId);
      if (child !== undefined) this.endRun(child, ts, failure, true);
    }
    for (const chat of run.chats.values()) {
      if (chat.failure === undefined) {
        closeIncomplete(chat.obs, ts, failure);
        continue;
      }
      // Its last attempt failed and nothing followed: that failure is the call's outcome.
      fail(chat.obs, chat.failure.error);
      chat.obs.endTs = chat.failure.ts;
    }
    for (const tool of run.tools.values()) closeIncomplete(tool, ts, failure);
    if (incomplete) closeIncomplete(run.obs, ts, failure);
    else run.obs.endTs = ts;
    this.runs.delete(run.obs.runId);
    this.ended.add(run.obs.runId);
    if (run.parentRunId !== undefined) this.runs.get(run.parentRunId)?.children.delete(run.obs.runId);
  }

  private observe(obs: TraceObservation): TraceObservation {
    this.observations.push(obs);
    return obs;
  }
}

/** Add an attempt's `cost` (if any) to its generation's: a retried call's generation costs all its attempts. */
function addAttemptCost(generation: TraceObservation, cost: CostTotals | undefined): void {
  if (cost === undefined) return;
  generation.cost = generation.cost === undefined ? cost : addCost(generation.cost, cost);
}
