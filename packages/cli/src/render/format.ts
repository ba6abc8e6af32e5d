import type { CostTotals } from "@tinyagents/harness";
import { markCostUnknown } from "@tinyagents/harness/internal";
import type { Usage, UsageTotals } from "@tinyagents/inference";
import { formatUsd } from "../figures/figures.js";

// One formatter for every figure (figures.ts): the CLI and the inspector print through it.
export {
  formatCostFigure,
  formatCount,
  formatDelta,
  formatDuration,
  formatTokenTotal,
  formatUsd,
} from "../figures/figures.js";

/**
 * The cost as the CLI reports it: `cost`, flagged unknown when some model call reported no token
 * usage (a server that sends none, a cut stream): such a call cost something we cannot know, and
 * the totals alone would add it as $0.
 */
export function reportedCost(cost: CostTotals, modelCalls: number, usage: UsageTotals): CostTotals {
  return cost.unknown !== true && usage.calls < modelCalls ? markCostUnknown(cost) : cost;
}

/**
 * `$0.001234`, or `unknown` (with the priced part as a lower bound when there is one): never a
 * silent `$0` for a cost we do not know. Pass `modelCalls` and `usage` (the run's) so calls that
 * reported no usage make it unknown too (see {@link reportedCost}).
 */
export function formatCost(cost: CostTotals, calls?: { modelCalls: number; usage: UsageTotals }): string {
  const shown = calls === undefined ? cost : reportedCost(cost, calls.modelCalls, calls.usage);
  const amount = formatUsd(shown.total);
  if (shown.unknown !== true) return amount;
  // `usage.unknown` (the run's own record of a call without usage) says which unknown it is.
  const unreported = shown !== cost || calls?.usage.unknown === true;
  const why = unreported ? "the model reported no token usage" : "no known price for this model";
  return shown.total > 0 ? `unknown (at least ${amount}; ${why} for some calls)` : `unknown (${why})`;
}

/**
 * The cost with the date of its prices: `$0.001234 (prices as of 2026-09-23)`, so an old
 * catalog shows its age. Prices without a date (your own `pricing`) print no date.
 */
export function formatCostWithDate(
  cost: CostTotals,
  calls?: { modelCalls: number; usage: UsageTotals },
): string {
  const text = formatCost(cost, calls);
  return cost.pricingAsOf === undefined ? text : `${text} (prices as of ${cost.pricingAsOf})`;
}

/** `230 in (12 cached), 45 out (10 reasoning)`. */
export function formatTokens(u: Usage): string {
  return `${u.inputTokens} in (${u.cacheReadTokens} cached), ${u.outputTokens} out (${u.reasoningTokens} reasoning)`;
}

/** JSON arguments, cut to `max` characters. */
export function formatArgs(args: unknown, max = 120): string {
  const text = JSON.stringify(args) ?? "";
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A local date-time for listings: `2025-03-10 12:34:56`. */
export function formatTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** `1 model call`, `2 model calls`. */
export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
