import type { HarnessRunStatus } from "@tinyagents/harness";
import { costView } from "./cost-breakdown.js";
import type { JournalFacts } from "./journal-reading.js";
import type { RunDescription, RunSummary } from "./view-types.js";

const NO_FACTS: JournalFacts = { models: [], firstStartedAt: undefined, pausedMs: 0 };

/**
 * A run's row from its status record, with what its journal adds (`facts`: models, first start,
 * pauses) and what the host knows (`description`: prompt, root agent, tags) when given. Without
 * them (the dashboard's run-level figures) it is the status record alone.
 */
export function statusSummary(
  status: HarnessRunStatus,
  facts: JournalFacts = NO_FACTS,
  description?: RunDescription,
): RunSummary {
  const { models } = facts;
  // A resumed run's status record restarts at the resume: its first start is the journal's.
  const startedAt = Math.min(status.startedAt, facts.firstStartedAt ?? status.startedAt);
  // Some call reported no usage: tokens are a lower bound and the cost unknown.
  const missingUsage = status.usage.unknown === true || status.usage.calls < status.modelCalls;
  const summary: RunSummary = {
    runId: status.runId,
    status: status.status,
    phase: status.phase,
    rootAgent: description?.rootAgent ?? status.component,
    models,
    startedAt,
    tokens: {
      inputTokens: status.usage.inputTokens,
      outputTokens: status.usage.outputTokens,
      totalTokens: status.usage.totalTokens,
      cacheReadTokens: status.usage.cacheReadTokens,
      cacheWriteTokens: status.usage.cacheWriteTokens,
      reasoningTokens: status.usage.reasoningTokens,
      ...(missingUsage ? { unknown: true } : {}),
    },
    cost: costView(status.cost, missingUsage),
    modelCalls: status.modelCalls,
    toolCalls: status.toolCalls,
    // The run's own tags (any library run), then what the host adds (the CLI: command, model).
    tags: [...new Set([...(status.tags ?? []), ...(description?.tags ?? [])])],
  };
  if (status.endedAt !== undefined) {
    summary.endedAt = status.endedAt;
    summary.durationMs = status.endedAt - startedAt;
  }
  if (facts.pausedMs > 0) summary.pausedMs = facts.pausedMs;
  if (status.threadId !== undefined) summary.threadId = status.threadId;
  if (description?.prompt !== undefined) summary.prompt = description.prompt;
  if (status.error !== undefined) summary.error = { code: status.error.code, message: status.error.message };
  return summary;
}
