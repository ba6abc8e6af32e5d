import { addUsageTotals, emptyUsageTotals, markUsageUnknown, recordUsage } from "@tinyagents/inference";
import { addCost, emptyCost } from "../cost/cost.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { AgentObservation } from "./agent-observation.js";
import { CallBilling, type ModelAttemptEnd } from "./call-billing.js";
import type { Projection, ProjectionSnapshot } from "./projection.js";
import { compareStatus } from "./status-store.js";

interface RunState {
  status: HarnessRunStatus;
  /** Distinct model and tool call ids seen (made at the first call of each kind). */
  modelCallIds: Set<string> | undefined;
  toolCallIds: Set<string> | undefined;
  usageCalls: number;
  costCalls: number;
  /** Counts each model attempt's usage and cost once (separate records or its terminal event). */
  billing: CallBilling;
  childUnknown: boolean;
  /** A model call of the run completed without reporting usage (not a cache hit). */
  unreported: boolean;
  /** The run's lease length, once a `run.heartbeat` announced it. */
  leaseMs?: number;
}

/**
 * The latest HarnessRunStatus of every run, derived from observations alone (so it can be
 * rebuilt from a journal). It mirrors the live `RunStatusTracker`: counts distinct model calls
 * and tool calls (recoveries included), the active model and tool calls, usage and cost (a
 * finished sub-agent's tree totals roll into its parent on `subagent.completed`), the lifecycle and the last event id.
 * Phases are coarser than the tracker's (events do not mark every phase); `component` is
 * `"graph_node"` for a graph node's call (its records carry `graphNode`), else always `"agent"`
 * (events do not distinguish direct model calls).
 */
export class RunStatusProjection implements Projection<HarnessRunStatus[]> {
  readonly name = "run-status";
  readonly projectionVersion = 1;
  private readonly runs = new Map<string, RunState>();
  private sourceOffset = -1;

  /**
   * Fold one observation in. Returns the run's live record when a field a status reader cares
   * about changed (lifecycle, counts, active calls, usage, cost), else undefined. The returned
   * object is the projection's own: copy it before keeping it.
   */
  apply(o: AgentObservation): HarnessRunStatus | undefined {
    this.sourceOffset = Math.max(this.sourceOffset, o.offset);
    const run = this.state(o);
    const s = run.status;
    s.lastEventId = o.id;
    const e = o.event;
    // Every event of a leased run is a sign of life: the lease runs from its timestamp.
    if (run.leaseMs !== undefined) {
      s.heartbeatAt = o.ts;
      s.leaseUntil = o.ts + run.leaseMs;
    }
    switch (e.type) {
      case "run.heartbeat":
        // Record time, like every other timestamp of the record (the sink's clock).
        s.ownerId = e.ownerId;
        if (e.epoch !== undefined) s.epoch = e.epoch;
        run.leaseMs = e.leaseMs;
        s.heartbeatAt = o.ts;
        s.leaseUntil = o.ts + e.leaseMs;
        break;
      case "run.resumed":
        // A resumed (or recovered) run continues its counters, usage and cost: a projection in a
        // new process starts from the run's totals, not from zero (one that saw them keeps them).
        s.modelCalls = Math.max(s.modelCalls, e.modelCalls);
        s.toolCalls = Math.max(s.toolCalls, e.toolCalls);
        if (e.usage !== undefined) s.usage = { ...e.usage };
        if (e.cost !== undefined) {
          s.cost = { ...e.cost };
          if (e.cost.unknown === true) run.childUnknown = true;
        }
        break;
      case "run.started":
        s.status = "running";
        s.startedAt = o.ts;
        if (e.threadId !== undefined) s.threadId = e.threadId;
        if (e.tags !== undefined) s.tags = e.tags.slice();
        break;
      case "middleware.started":
        s.phase = "middleware";
        return undefined;
      case "model.abandoned":
        run.billing.attemptStarted(e.callId);
        return undefined;
      case "model.started":
        run.billing.attemptStarted(e.callId);
        run.modelCallIds ??= new Set();
        if (!run.modelCallIds.has(e.callId)) {
          run.modelCallIds.add(e.callId);
          s.modelCalls++;
        }
        s.activeModelCall = e.callId;
        s.phase = "model";
        break;
      case "model.completed":
        delete s.activeModelCall;
        this.billEnd(run, e);
        // A call that reported no usage makes the run's usage and cost lower bounds, as live.
        if (e.usage === undefined && !e.servedFromCache && !run.unreported) {
          run.unreported = true;
          s.usage = markUsageUnknown(s.usage);
        }
        break;
      case "model.failed":
        delete s.activeModelCall;
        this.billEnd(run, e);
        // An attempt the provider may have billed without reporting its usage: as live.
        if (e.usageUnknown === true && !run.unreported) {
          run.unreported = true;
          s.usage = markUsageUnknown(s.usage);
        }
        break;
      case "usage.recorded":
        s.usage = recordUsage(s.usage, e.usage);
        run.usageCalls++;
        run.billing.usageRecorded(e.callId);
        break;
      case "cost.recorded":
        s.cost = addCost(s.cost, e.cost);
        run.costCalls++;
        run.billing.costRecorded(e.callId);
        break;
      case "tool.started":
        this.countTool(run, e.callId);
        s.activeToolCalls.push(e.callId);
        s.phase = "tools";
        break;
      case "tool.unknown":
      case "tool.invalid_args":
        this.countTool(run, e.callId);
        break;
      case "tool.completed":
      case "tool.failed": {
        const i = s.activeToolCalls.indexOf(e.callId);
        if (i >= 0) s.activeToolCalls.splice(i, 1);
        break;
      }
      case "subagent.completed":
        // Emitted on the parent's scope with the child's tree totals, as `recordChild` folds them.
        s.usage = addUsageTotals(s.usage, e.usage);
        s.cost = addCost(s.cost, e.cost);
        if (e.cost.unknown === true) run.childUnknown = true;
        break;
      case "run.completed":
        this.finish(s, "completed", o.ts);
        break;
      case "run.failed":
        this.finish(s, e.error.code === "cancelled" ? "cancelled" : "failed", o.ts);
        s.error = e.error;
        break;
      case "run.interrupted":
        this.finish(s, "interrupted", o.ts);
        break;
      default:
        return undefined;
    }
    this.settleCost(run);
    s.updatedAt = o.ts;
    return s;
  }

  /** A copy of one run's status. */
  get(runId: string): HarnessRunStatus | undefined {
    const run = this.runs.get(runId);
    return run === undefined ? undefined : structuredClone(run.status);
  }

  snapshot(): ProjectionSnapshot<HarnessRunStatus[]> {
    return {
      name: this.name,
      projectionVersion: this.projectionVersion,
      sourceOffset: this.sourceOffset,
      value: [...this.runs.values()].map((r) => structuredClone(r.status)).sort(compareStatus),
    };
  }

  private state(o: AgentObservation): RunState {
    let run = this.runs.get(o.runId);
    if (run === undefined) {
      const status: HarnessRunStatus = {
        runId: o.runId,
        rootRunId: o.rootRunId,
        component: "agent",
        status: "pending",
        phase: "idle",
        modelCalls: 0,
        toolCalls: 0,
        activeToolCalls: [],
        usage: emptyUsageTotals(),
        cost: emptyCost(),
        startedAt: o.ts,
        updatedAt: o.ts,
      };
      if (o.parentRunId !== undefined) status.parentRunId = o.parentRunId;
      if (o.graphNode !== undefined) {
        status.component = "graph_node";
        status.graphNode = { ...o.graphNode };
      }
      run = {
        status,
        modelCallIds: undefined,
        toolCallIds: undefined,
        usageCalls: 0,
        costCalls: 0,
        billing: new CallBilling(),
        childUnknown: false,
        unreported: false,
      };
      this.runs.set(o.runId, run);
    }
    return run;
  }

  /** What a model attempt's end bills that no `usage.recorded` / `cost.recorded` did (see `CallBilling`). */
  private billEnd(run: RunState, end: ModelAttemptEnd): void {
    const s = run.status;
    const usage = run.billing.usageOf(end);
    if (usage !== undefined) {
      s.usage = recordUsage(s.usage, usage);
      run.usageCalls++;
    }
    const cost = run.billing.costOf(end);
    if (cost !== undefined) {
      s.cost = addCost(s.cost, cost);
      run.costCalls++;
    }
  }

  private countTool(run: RunState, callId: string): void {
    run.toolCallIds ??= new Set();
    if (run.toolCallIds.has(callId)) return;
    run.toolCallIds.add(callId);
    run.status.toolCalls++;
  }

  private finish(s: HarnessRunStatus, status: HarnessRunStatus["status"], ts: number): void {
    s.status = status;
    s.phase = "done";
    s.activeToolCalls = [];
    delete s.activeModelCall;
    s.endedAt = ts;
  }

  /** Cost is unknown while some usage has no matching price, some call reported no usage, or a child's cost was unknown. */
  private settleCost(run: RunState): void {
    if (run.usageCalls > run.costCalls || run.childUnknown || run.unreported) run.status.cost.unknown = true;
    else delete run.status.cost.unknown;
  }
}
