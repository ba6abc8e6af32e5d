import type { AgentRun } from "@tinyagents/harness";
import { formatCostWithDate, formatDuration, formatTokens, reportedCost } from "./format.js";

/** The end-of-run summary: model and tool calls, tokens (cached, reasoning), cost (with the date of its prices), wall time, run id. */
export function formatSummary(
  run: Pick<AgentRun, "modelCalls" | "toolCalls" | "usage" | "cost" | "children">,
  wallMs: number,
  runId: string,
): string {
  const childCalls = (run.children ?? []).length;
  return [
    `model calls: ${run.modelCalls}   tool calls: ${run.toolCalls}${childCalls > 0 ? `   sub-agent runs: ${childCalls}` : ""}`,
    `tokens: ${formatTokens(run.usage)}`,
    `cost: ${formatCostWithDate(run.cost, run)}   wall time: ${formatDuration(wallMs)}   run id: ${runId}`,
  ].join("\n");
}

/** The same facts as JSON (for `--json`). */
export function summaryJson(run: AgentRun, wallMs: number, runId: string) {
  return {
    runId,
    threadId: run.threadId ?? null,
    stopReason: run.stopReason,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    usage: run.usage,
    cost: reportedCost(run.cost, run.modelCalls, run.usage),
    wallMs,
  };
}
