import { addUsageTotals } from "@tinyagents/inference";
import type { ChildRunSummary } from "../contracts/child-run-summary.js";
import { addCost } from "../cost/cost.js";
import type { LoopSession } from "./loop-session.js";

export type { ChildRunSummary } from "../contracts/child-run-summary.js";

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
