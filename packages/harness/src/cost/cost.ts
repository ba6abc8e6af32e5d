import type { Usage } from "@tinyagents/inference";

/** Prices in US dollars per one million tokens. Cache prices default to the input price. */
export interface ModelPricing {
  inputPerMillion: number;
  outputPerMillion: number;
  cacheReadPerMillion?: number;
  cacheWritePerMillion?: number;
}

/** Money spent, split by token class. All amounts in `currency` (USD). */
export interface CostTotals {
  currency: "USD";
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

/** Zero cost. */
export function emptyCost(): CostTotals {
  return { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/**
 * The cost of one call. Cached tokens are a subset of `inputTokens` (see `Usage`), so uncached
 * input is billed at the input price and each cache class at its own price: nothing is counted twice.
 */
export function estimateCost(pricing: ModelPricing, u: Usage): CostTotals {
  const perToken = (perMillion: number) => perMillion / 1_000_000;
  const uncached = Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens);
  const input = uncached * perToken(pricing.inputPerMillion);
  const cacheRead = u.cacheReadTokens * perToken(pricing.cacheReadPerMillion ?? pricing.inputPerMillion);
  const cacheWrite = u.cacheWriteTokens * perToken(pricing.cacheWritePerMillion ?? pricing.inputPerMillion);
  const output = u.outputTokens * perToken(pricing.outputPerMillion);
  return {
    currency: "USD",
    input,
    output,
    cacheRead,
    cacheWrite,
    total: input + output + cacheRead + cacheWrite,
  };
}

/** Sum two cost records. */
export function addCost(a: CostTotals, b: CostTotals): CostTotals {
  return {
    currency: "USD",
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    total: a.total + b.total,
  };
}
