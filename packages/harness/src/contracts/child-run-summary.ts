import type { UsageTotals } from "@tinyagents/inference";
import type { CostTotals } from "./cost-totals.js";
import type { ExecutionStatus } from "./run-status.js";

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
