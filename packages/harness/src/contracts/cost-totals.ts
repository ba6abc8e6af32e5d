/** Money spent, split by token class. All amounts in `currency` (USD). */
export interface CostTotals {
  currency: "USD";
  input: number;
  /** Output tokens, reasoning included. */
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
  /**
   * Set when at least one call in these totals had usage but no known price: the amounts then
   * cover only the priced calls and are a lower bound, never a silent zero.
   */
  unknown?: true;
  /**
   * The date of the prices used (`ModelPricing.asOf`); over several calls, the oldest. Absent
   * when the prices carried no date (your own `pricing` without `asOf`).
   */
  pricingAsOf?: string;
}
