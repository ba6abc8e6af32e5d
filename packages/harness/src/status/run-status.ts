import { type ErrorSummary, emptyUsageTotals } from "@tinyagents/inference";
import type { GraphNodeRef } from "../config/graph-node.js";
import type {
  ExecutionStatus,
  HarnessComponent,
  HarnessPhase,
  HarnessRunStatus,
  RunTotals,
} from "../contracts/run-status.js";
import { emptyCost } from "../cost/cost.js";

export type {
  ExecutionStatus,
  HarnessComponent,
  HarnessPhase,
  HarnessRunStatus,
  RunTotals,
} from "../contracts/run-status.js";

/** The tracker's internal record: every field always present (a stable object shape keeps it fast). */
interface LiveStatus {
  identity: {
    runId: string;
    rootRunId: string;
    parentRunId?: string;
    threadId?: string;
    tags?: string[];
    component: HarnessComponent;
  };
  graphNode: GraphNodeRef | undefined;
  status: ExecutionStatus;
  phase: HarnessPhase;
  activeModelCall: string | undefined;
  activeToolCalls: string[];
  startedAt: number;
  updatedAt: number;
  endedAt: number | undefined;
  error: ErrorSummary | undefined;
}

/**
 * Keeps a HarnessRunStatus current as the loop moves. Cheap: field writes only. Counts, usage
 * and cost are read from `totals` (the run's own counters) when a snapshot is taken.
 */
export class RunStatusTracker {
  private readonly record: LiveStatus;
  private readonly clock: { now(): number };
  private readonly events: { readonly lastEventId: string | undefined };
  private readonly totals: RunTotals;

  constructor(
    identity: {
      runId: string;
      rootRunId: string;
      parentRunId?: string;
      threadId?: string;
      tags?: string[];
      component: HarnessComponent;
    },
    /** The time (a function, or a clock: the loop passes the run's, no closure per run). */
    now: (() => number) | { now(): number },
    /** The id of the run's last event (a function, or the run's event sink itself). */
    lastEventId: (() => string | undefined) | { readonly lastEventId: string | undefined },
    totals: RunTotals = { modelCalls: 0, toolCalls: 0, usage: emptyUsageTotals(), cost: emptyCost() },
    graphNode?: GraphNodeRef,
  ) {
    this.clock = typeof now === "function" ? { now } : now;
    this.events =
      typeof lastEventId === "function"
        ? {
            get lastEventId() {
              return lastEventId();
            },
          }
        : lastEventId;
    this.totals = totals;
    const t = this.clock.now();
    this.record = {
      identity,
      graphNode,
      status: "pending",
      phase: "idle",
      activeModelCall: undefined,
      activeToolCalls: [],
      startedAt: t,
      updatedAt: t,
      endedAt: undefined,
      error: undefined,
    };
  }

  /** A copy of the current record (safe to keep, serialize or compare; never shares arrays or objects). */
  snapshot(): HarnessRunStatus {
    const r = this.record;
    const { usage, cost } = this.totals;
    // Object.assign, not a spread plus new keys: that pattern hits a slow path in Node 20's V8.
    const copy: HarnessRunStatus = Object.assign({}, r.identity, {
      status: r.status,
      phase: r.phase,
      modelCalls: this.totals.modelCalls,
      toolCalls: this.totals.toolCalls,
      activeToolCalls: r.activeToolCalls.slice(),
      usage: { ...usage },
      cost: { ...cost },
      startedAt: r.startedAt,
      updatedAt: r.updatedAt,
    });
    if (r.identity.tags !== undefined) copy.tags = r.identity.tags.slice();
    if (r.graphNode !== undefined) copy.graphNode = { ...r.graphNode };
    if (r.activeModelCall !== undefined) copy.activeModelCall = r.activeModelCall;
    const last = this.events.lastEventId;
    if (last !== undefined) copy.lastEventId = last;
    if (r.endedAt !== undefined) copy.endedAt = r.endedAt;
    if (r.error !== undefined) copy.error = structuredClone(r.error);
    return copy;
  }

  /** The run's cost so far (US dollars; a lower bound when `cost.unknown`), without a copy. */
  costTotal(): number {
    return this.totals.cost.total;
  }

  start(): void {
    this.record.status = "running";
    this.touch();
  }

  /** Record the phase the loop is in (no timestamp: phases change several times per step). */
  phase(phase: HarnessPhase): void {
    this.record.phase = phase;
  }

  /** A model call started (the run has already counted it); `at`: its start time when the caller read the clock. */
  modelStarted(callId: string, at?: number): void {
    this.record.activeModelCall = callId;
    this.record.phase = "model";
    this.touch(at);
  }

  /** The model call ended; `at`: its end time when the caller already knows it. */
  modelEnded(at?: number): void {
    this.record.activeModelCall = undefined;
    this.touch(at);
  }

  /** A tool call started; `at`: its start time when the caller already read the clock. */
  toolStarted(callId: string, at?: number): void {
    this.record.activeToolCalls.push(callId);
    this.touch(at);
  }

  /** A tool call ended; `at`: its end time when the caller already knows it. */
  toolEnded(callId: string, at?: number): void {
    const active = this.record.activeToolCalls;
    const i = active.indexOf(callId);
    if (i >= 0) {
      // Shift down and drop the last slot: `splice` would allocate the removed items' array, and
      // `length--` is a runtime call in V8 (it showed as `set length` in the W1 profile); `pop` is not.
      for (let j = i + 1; j < active.length; j++) active[j - 1] = active[j] as string;
      active.pop();
    }
    this.touch(at);
  }

  finish(status: Exclude<ExecutionStatus, "pending" | "running">, error?: ErrorSummary): void {
    this.record.status = status;
    this.record.phase = "done";
    this.record.activeToolCalls = [];
    this.record.activeModelCall = undefined;
    if (error !== undefined) this.record.error = error;
    // One clock read: the record changed last when the run ended.
    const endedAt = this.clock.now();
    this.record.endedAt = endedAt;
    this.touch(endedAt);
  }

  /**
   * Something the record reports changed outside its own methods (a child run was folded in);
   * `at` saves a clock read when the caller has the time already (the hot path reads it once).
   */
  touch(at?: number): void {
    this.record.updatedAt = at ?? this.clock.now();
  }
}
