import {
  addUsage,
  type ErrorSummary,
  emptyUsageTotals,
  recordUsage,
  type Usage,
  type UsageTotals,
} from "@tinyagents/inference";
import { addCost, type CostTotals, emptyCost } from "../cost/cost.js";

/** Lifecycle of a run. */
export type ExecutionStatus = "pending" | "running" | "interrupted" | "completed" | "failed" | "cancelled";

/** What the run is doing right now. */
export type HarnessPhase =
  | "idle"
  | "building_request"
  | "model"
  | "tools"
  | "middleware"
  | "persisting"
  | "done";

/** What kind of harness execution a status record describes. */
export type HarnessComponent = "agent" | "model_call";

/**
 * A compact, JSON-safe answer to "what is this run doing now?". Operational only: it never
 * holds prompts, tool outputs or raw provider payloads.
 */
export interface HarnessRunStatus {
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  threadId?: string;
  component: HarnessComponent;
  status: ExecutionStatus;
  phase: HarnessPhase;
  modelCalls: number;
  toolCalls: number;
  activeModelCall?: string;
  activeToolCalls: string[];
  lastEventId?: string;
  usage: UsageTotals;
  cost: CostTotals;
  startedAt: number;
  updatedAt: number;
  endedAt?: number;
  error?: ErrorSummary;
}

/** The tracker's internal record: every field always present (a stable object shape keeps it fast). */
interface LiveStatus {
  identity: {
    runId: string;
    rootRunId: string;
    parentRunId?: string;
    threadId?: string;
    component: HarnessComponent;
  };
  status: ExecutionStatus;
  phase: HarnessPhase;
  modelCalls: number;
  toolCalls: number;
  activeModelCall: string | undefined;
  activeToolCalls: string[];
  usage: UsageTotals;
  cost: CostTotals;
  startedAt: number;
  updatedAt: number;
  endedAt: number | undefined;
  error: ErrorSummary | undefined;
}

/** Keeps a HarnessRunStatus current as the loop moves. Cheap: field writes only. */
export class RunStatusTracker {
  private readonly record: LiveStatus;
  private readonly now: () => number;
  private readonly lastEventId: () => string | undefined;

  constructor(
    identity: {
      runId: string;
      rootRunId: string;
      parentRunId?: string;
      threadId?: string;
      component: HarnessComponent;
    },
    now: () => number,
    lastEventId: () => string | undefined,
  ) {
    this.now = now;
    this.lastEventId = lastEventId;
    const t = now();
    this.record = {
      identity,
      status: "pending",
      phase: "idle",
      modelCalls: 0,
      toolCalls: 0,
      activeModelCall: undefined,
      activeToolCalls: [],
      usage: emptyUsageTotals(),
      cost: emptyCost(),
      startedAt: t,
      updatedAt: t,
      endedAt: undefined,
      error: undefined,
    };
  }

  /** A copy of the current record (safe to keep, serialize or compare; never shares arrays or objects). */
  snapshot(): HarnessRunStatus {
    const r = this.record;
    // Object.assign, not a spread plus new keys: that pattern hits a slow path in Node 20's V8.
    const copy: HarnessRunStatus = Object.assign({}, r.identity, {
      status: r.status,
      phase: r.phase,
      modelCalls: r.modelCalls,
      toolCalls: r.toolCalls,
      activeToolCalls: r.activeToolCalls.slice(),
      usage: { calls: r.usage.calls, usage: { ...r.usage.usage } },
      cost: { ...r.cost },
      startedAt: r.startedAt,
      updatedAt: r.updatedAt,
    });
    if (r.activeModelCall !== undefined) copy.activeModelCall = r.activeModelCall;
    const last = this.lastEventId();
    if (last !== undefined) copy.lastEventId = last;
    if (r.endedAt !== undefined) copy.endedAt = r.endedAt;
    if (r.error !== undefined) copy.error = structuredClone(r.error);
    return copy;
  }

  start(): void {
    this.record.status = "running";
    this.touch();
  }

  /** Phase changes are frequent and cheap: they do not bump `updatedAt` (the next count change does). */
  phase(phase: HarnessPhase): void {
    this.record.phase = phase;
  }

  modelStarted(callId: string): void {
    this.record.modelCalls++;
    this.record.activeModelCall = callId;
    this.record.phase = "model";
    this.touch();
  }

  modelEnded(): void {
    this.record.activeModelCall = undefined;
    this.touch();
  }

  recordUsage(usage: Usage, cost: CostTotals | undefined): void {
    this.record.usage = recordUsage(this.record.usage, usage);
    if (cost !== undefined) this.record.cost = addCost(this.record.cost, cost);
    else this.record.cost.unknown = true;
  }

  /** Roll a finished sub-agent run's tree totals into this run's usage and cost. */
  recordChild(usage: UsageTotals, cost: CostTotals): void {
    const u = this.record.usage;
    this.record.usage = { calls: u.calls + usage.calls, usage: addUsage(u.usage, usage.usage) };
    this.record.cost = addCost(this.record.cost, cost);
    this.touch();
  }

  /** Continue the counters of a paused run that is being resumed. */
  restore(counts: { modelCalls: number; toolCalls: number; usage: UsageTotals; cost: CostTotals }): void {
    this.record.modelCalls = counts.modelCalls;
    this.record.toolCalls = counts.toolCalls;
    this.record.usage = { calls: counts.usage.calls, usage: { ...counts.usage.usage } };
    this.record.cost = { ...counts.cost };
  }

  /** A tool call took a slot (executed or answered by a recovery), as `AgentRun.toolCalls` counts it. */
  toolCallAdmitted(): void {
    this.record.toolCalls++;
  }

  toolStarted(callId: string): void {
    this.record.activeToolCalls.push(callId);
    this.touch();
  }

  toolEnded(callId: string): void {
    const i = this.record.activeToolCalls.indexOf(callId);
    if (i >= 0) this.record.activeToolCalls.splice(i, 1);
    this.touch();
  }

  finish(status: Exclude<ExecutionStatus, "pending" | "running">, error?: ErrorSummary): void {
    this.record.status = status;
    this.record.phase = "done";
    this.record.activeToolCalls = [];
    this.record.activeModelCall = undefined;
    if (error !== undefined) this.record.error = error;
    this.record.endedAt = this.now();
    this.touch();
  }

  private touch(): void {
    this.record.updatedAt = this.now();
  }
}
