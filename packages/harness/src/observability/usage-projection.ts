import {
  addUsageTotals,
  emptyUsageTotals,
  markUsageUnknown,
  recordUsage,
  type Usage,
  type UsageTotals,
} from "@tinyagents/inference";
import { addCost, type CostTotals, emptyCost, rollUpCost } from "../cost/cost.js";
import type { AgentObservation } from "./agent-observation.js";
import { CallBilling } from "./call-billing.js";
import type { Projection, ProjectionSnapshot } from "./projection.js";

/** Usage and cost of one run: its own calls, and its whole sub-agent tree. */
export interface RunUsageCost {
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  own: { usage: UsageTotals; cost: CostTotals };
  /** Own plus every descendant's own totals (see `rollUpCost`). */
  tree: { usage: UsageTotals; cost: CostTotals };
}

interface Own {
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  usage: UsageTotals;
  cost: CostTotals;
  usageCalls: number;
  costCalls: number;
  /** Counts each attempt's usage and cost once (separate records or its terminal event). */
  billing: CallBilling;
}

/**
 * Usage and cost roll-ups from each model attempt's billed usage and cost: its `usage.recorded`
 * and `cost.recorded` when the events have them, else its `model.completed` / `model.failed`
 * (an `"essential"` journal; see `CallBilling`). Each run's `own` totals count only its own
 * model calls (a call with usage but no cost marks the cost unknown; a `model.completed` without
 * usage, not served from cache, or a `model.failed` with `usageUnknown`, marks usage and cost
 * unknown); `tree` rolls children up into parents with the pure `rollUpCost`, so a parent's tree
 * cost is exactly its own plus the sum of its children's tree costs.
 */
export class UsageCostProjection implements Projection<Record<string, RunUsageCost>> {
  readonly name = "usage-cost";
  readonly projectionVersion = 1;
  private readonly runs = new Map<string, Own>();
  private sourceOffset = -1;

  apply(o: AgentObservation): void {
    this.sourceOffset = Math.max(this.sourceOffset, o.offset);
    const e = o.event;
    if (e.type === "model.started" || e.type === "model.abandoned") {
      this.runs.get(o.runId)?.billing.attemptStarted(e.callId);
      return;
    }
    if (
      e.type !== "usage.recorded" &&
      e.type !== "cost.recorded" &&
      e.type !== "run.started" &&
      e.type !== "model.completed" &&
      e.type !== "model.failed"
    )
      return;
    const run = this.own(o);
    if (e.type === "model.completed" || e.type === "model.failed") {
      const usage = run.billing.usageOf(e);
      if (usage !== undefined) addUsage(run, usage);
      const cost = run.billing.costOf(e);
      if (cost !== undefined) addCallCost(run, cost);
      if (e.type === "model.completed") {
        if (e.usage === undefined && !e.servedFromCache) run.usage = markUsageUnknown(run.usage);
      } else if (e.usageUnknown === true) run.usage = markUsageUnknown(run.usage);
    } else if (e.type === "usage.recorded") {
      addUsage(run, e.usage);
      run.billing.usageRecorded(e.callId);
    } else if (e.type === "cost.recorded") {
      addCallCost(run, e.cost);
      run.billing.costRecorded(e.callId);
    }
  }

  snapshot(): ProjectionSnapshot<Record<string, RunUsageCost>> {
    const children = new Map<string, Own[]>();
    for (const run of this.runs.values()) {
      if (run.parentRunId === undefined) continue;
      const list = children.get(run.parentRunId) ?? [];
      list.push(run);
      children.set(run.parentRunId, list);
    }
    const trees = new Map<string, { usage: UsageTotals; cost: CostTotals }>();
    const tree = (run: Own): { usage: UsageTotals; cost: CostTotals } => {
      const known = trees.get(run.runId);
      if (known !== undefined) return known;
      const kids = (children.get(run.runId) ?? []).map(tree);
      const own = ownTotals(run);
      const result = {
        usage: kids.reduce((sum, kid) => addUsageTotals(sum, kid.usage), own.usage),
        cost: rollUpCost(
          own.cost,
          kids.map((kid) => kid.cost),
        ),
      };
      trees.set(run.runId, result);
      return result;
    };
    const value: Record<string, RunUsageCost> = {};
    for (const run of [...this.runs.values()].sort((a, b) => (a.runId < b.runId ? -1 : 1))) {
      const entry: RunUsageCost = {
        runId: run.runId,
        rootRunId: run.rootRunId,
        own: structuredClone(ownTotals(run)),
        tree: structuredClone(tree(run)),
      };
      if (run.parentRunId !== undefined) entry.parentRunId = run.parentRunId;
      value[run.runId] = entry;
    }
    return {
      name: this.name,
      projectionVersion: this.projectionVersion,
      sourceOffset: this.sourceOffset,
      value,
    };
  }

  private own(o: AgentObservation): Own {
    let run = this.runs.get(o.runId);
    if (run === undefined) {
      run = {
        runId: o.runId,
        rootRunId: o.rootRunId,
        usage: emptyUsageTotals(),
        cost: emptyCost(),
        usageCalls: 0,
        costCalls: 0,
        billing: new CallBilling(),
      };
      if (o.parentRunId !== undefined) run.parentRunId = o.parentRunId;
      this.runs.set(o.runId, run);
    }
    return run;
  }
}

function addUsage(run: Own, usage: Usage): void {
  run.usage = recordUsage(run.usage, usage);
  run.usageCalls++;
}

function addCallCost(run: Own, cost: CostTotals): void {
  run.cost = addCost(run.cost, cost);
  run.costCalls++;
}

function ownTotals(run: Own): { usage: UsageTotals; cost: CostTotals } {
  const incomplete = run.usageCalls > run.costCalls || run.usage.unknown === true;
  const cost = incomplete ? { ...run.cost, unknown: true as const } : run.cost;
  return { usage: run.usage, cost };
}
