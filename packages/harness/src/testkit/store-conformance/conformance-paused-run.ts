import type { PausedRun } from "../../durability/paused-run.js";

/** A minimal valid PausedRun (`reason` "checkpoint" or "approval") for claim checks. */
export function conformancePausedRun(runId: string, reason: PausedRun["reason"] = "checkpoint"): PausedRun {
  return {
    version: 1,
    runId,
    reason,
    pausedAt: 0,
    config: { runId, maxDepth: 5 } as PausedRun["config"],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    inputStart: 0,
    pendingToolCalls: [],
    heldMessages: [],
    modelCalls: 0,
    toolCalls: 0,
    usage: {
      calls: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
    cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    steps: [],
    children: [],
    artifacts: [],
  };
}
