import type { Usage } from "@tinyagents/inference";
import type { CostTotals } from "../contracts/cost-totals.js";

export type { CostTotals } from "../contracts/cost-totals.js";

/**
 * Prices in US dollars per one million tokens. Cache prices default to the input price;
 * `reasoningPerMillion` (for the few models that price reasoning apart) defaults to the output price.
 */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  /** Cached input read (a prompt-cache hit). */
  cacheReadPerMillion?: number;
  /** Input written to the prompt cache (Anthropic's 5-minute write, for example). */
  cacheWritePerMillion?: number;
  /** Reasoning tokens, when the provider bills them apart from visible output. */
  reasoningPerMillion?: number;
  /** The date these prices were taken (`YYYY-MM-DD`): set on catalog prices, optional on yours. */
  asOf?: string;
}

/** Zero cost. */
export function emptyCost(): CostTotals {
  return { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/**
 * The cost of one call. Cached tokens are a subset of `inputTokens` (see `Usage`), so uncached
 * input is billed at the input price and each cache class at its own price: cache reads at the
 * read price, cache writes at the write price, and neither again at the input price. Reasoning
 * tokens are a subset of `outputTokens`; they cost the output price unless
 * `reasoningPerMillion` says otherwise.
 */
export function estimateCost(pricing: ModelPricing, u: Usage): CostTotals {
  const perToken = (perMillion: number) => perMillion / 1_000_000;
  const uncached = Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens);
  const input = uncached * perToken(pricing.inputPerMillion);
  const cacheRead = u.cacheReadTokens * perToken(pricing.cacheReadPerMillion ?? pricing.inputPerMillion);
  const cacheWrite = u.cacheWriteTokens * perToken(pricing.cacheWritePerMillion ?? pricing.inputPerMillion);
  const reasoning =
    pricing.reasoningPerMillion === undefined ? 0 : Math.min(u.reasoningTokens, u.outputTokens);
  const output =
    (u.outputTokens - reasoning) * perToken(pricing.outputPerMillion) +
    reasoning * perToken(pricing.reasoningPerMillion ?? pricing.outputPerMillion);
  const cost: CostTotals = {
    currency: "USD",
    input,
    output,
    cacheRead,
    cacheWrite,
    total: input + output + cacheRead + cacheWrite,
  };
  if (pricing.asOf !== undefined) cost.pricingAsOf = pricing.asOf;
  return cost;
}

/** Sum two cost records. The result is `unknown` when either input is. */
export function addCost(a: CostTotals, b: CostTotals): CostTotals {
  const sum: CostTotals = {
    currency: "USD",
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
  if (a.unknown === true || b.unknown === true) sum.unknown = true;
  const asOf = olderDate(a.pricingAsOf, b.pricingAsOf);
  if (asOf !== undefined) sum.pricingAsOf = asOf;
  return sum;
}

/** A copy of `cost` flagged as incomplete: some call had usage but no price. */
export function markCostUnknown(cost: CostTotals): CostTotals {
  // Written out: a spread plus an added key takes a slow path in V8.
  const marked: CostTotals = {
    currency: cost.currency,
    input: cost.input,
    output: cost.output,
    cacheRead: cost.cacheRead,
    cacheWrite: cost.cacheWrite,
    total: cost.total,
    unknown: true,
  };
  if (cost.pricingAsOf !== undefined) marked.pricingAsOf = cost.pricingAsOf;
  return marked;
}

/** The older of two `YYYY-MM-DD` dates (ISO dates compare as strings). */
function olderDate(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a <= b ? a : b;
}

/**
 * The cost of a sub-agent tree: the parent's own cost plus each child's (already rolled-up)
 * total. Pure: inputs are not modified. Unknown if any part is unknown.
 */
export function rollUpCost(parent: CostTotals, children: readonly CostTotals[]): CostTotals {
  let total = { ...parent };
  for (const child of children) total = addCost(total, child);
  return total;
}
