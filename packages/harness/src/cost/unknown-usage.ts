import { markUsageUnknown, type UsageTotals } from "@tinyagents/inference";
import { type CostTotals, markCostUnknown } from "./cost.js";

/**
 * Record that a model call reported no usage: the run's usage and cost both become lower bounds
 * (`unknown: true`), so no surface reads the missing call as zero tokens or zero dollars.
 */
export function markUsageUnreported(totals: { usage: UsageTotals; cost: CostTotals }): void {
  if (totals.usage.unknown !== true) totals.usage = markUsageUnknown(totals.usage);
  if (totals.cost.unknown !== true) totals.cost = markCostUnknown(totals.cost);
}

/**
 * A cost as a person should read it: `"$0.012345"` when known (six decimals, like the CLI);
 * `"unknown"` when nothing is known; `"at least $0.012345"` when some calls had no price or
 * reported no usage (`cost.unknown`). Never prints a bare `0` for money that was not measured.
 *
 * ```ts
 * console.log(`cost: ${formatCost(result.cost)}`); // "cost: unknown" for an unpriced local model
 * ```
 */
export function formatCost(cost: CostTotals): string {
  if (cost.unknown === true) return cost.total > 0 ? `at least ${dollars(cost.total)}` : "unknown";
  return dollars(cost.total);
}

/**
 * A run's token total as a person should read it: `"150"` when every call reported its usage;
 * `"unknown"` when none did; `"at least 150"` when some calls reported none (`usage.unknown`), so
 * a provider that sends no usage never prints as `0 tokens`.
 *
 * ```ts
 * console.log(`tokens: ${formatTotalTokens(result.usage)}`);
 * ```
 */
export function formatTotalTokens(usage: UsageTotals): string {
  if (usage.unknown === true) return usage.totalTokens > 0 ? `at least ${usage.totalTokens}` : "unknown";
  return String(usage.totalTokens);
}

/** Dollars with six decimals (LLM calls cost fractions of a cent); tiny non-zero amounts say so. */
function dollars(amount: number): string {
  if (amount > 0 && amount < 0.0000005) return "<$0.000001";
  return `$${amount.toFixed(6)}`;
}
