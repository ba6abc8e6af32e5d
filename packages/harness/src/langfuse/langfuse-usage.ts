import type { Usage } from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";

/**
 * Langfuse `usageDetails` for one call. Langfuse sums the keys into the total (and prices each
 * key separately), so the classes are disjoint: `input` is uncached input only (our
 * `inputTokens` includes cache reads and writes), `output` excludes reasoning. Cache keys are
 * always there (0 is a cache miss worth seeing), reasoning only when non-zero; `total` is the
 * sum of the parts.
 */
export function langfuseUsageDetails(usage: Usage): Record<string, number> {
  const details: Record<string, number> = {
    input: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    output: Math.max(0, usage.outputTokens - usage.reasoningTokens),
  };
  details.input_cache_read = usage.cacheReadTokens;
  details.input_cache_creation = usage.cacheWriteTokens;
  if (usage.reasoningTokens > 0) details.output_reasoning = usage.reasoningTokens;
  let total = 0;
  for (const value of Object.values(details)) total += value;
  details.total = total;
  return details;
}

/**
 * Langfuse `costDetails` (USD) from the harness's own pricing: keys match
 * {@link langfuseUsageDetails} (reasoning is priced as output, so it stays in `output`).
 */
export function langfuseCostDetails(cost: CostTotals): Record<string, number> {
  const details: Record<string, number> = { input: cost.input, output: cost.output };
  if (cost.cacheRead > 0) details.input_cache_read = cost.cacheRead;
  if (cost.cacheWrite > 0) details.input_cache_creation = cost.cacheWrite;
  details.total = cost.total;
  return details;
}
