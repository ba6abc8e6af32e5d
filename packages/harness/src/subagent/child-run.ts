import { addUsageTotals, type UsageTotals } from "@tinyagents/inference";
import type { LoopSession } from "../agent-loop/loop-session.js";
import { addCost, type CostTotals } from "../cost/cost.js";
import type { ExecutionStatus } from "../status/run-status.js";

/**
 * A finished sub-agent run as its parent sees it. `usage` and `cost` are the child's TREE
 * totals (its own calls plus its descendants'), so a parent's totals are its own calls plus the
 * sum of its children's entries. Plain JSON data.
 */
export interface ChildRunSummary {
  /** The sub-agent's name. */
  name: string;
  runId: string;
  depth: number;
  /** How the child run ended. */
  status: Exclude<ExecutionStatus, "pending" | "running">;
  usage: UsageTotals;
  cost: CostTotals;
}

/**
 * Roll a finished child into the parent run of session `s`: its usage and cost are added to
 * `run.usage` / `run.cost` and to the status record, and the child is listed in `run.children`.
 * Failed and cancelled children are rolled up too: their tokens were spent.
 */
export function foldChildRun<State, Ctx>(s: LoopSession<State, Ctx>, child: ChildRunSummary): void {
  const { run } = s;
  run.usage = addUsageTotals(run.usage, child.usage);
  run.cost = addCost(run.cost, child.cost);
  run.children ??= [];
  run.children.push(child);
  s.status.touch();
}
