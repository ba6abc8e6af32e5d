import { addUsage, emptyUsage, type Usage } from "@tinyagents/inference";

/** What a {@link BudgetTracker} has counted so far. Plain JSON data. */
export interface BudgetSnapshot {
  usage: Usage;
  /** US dollars. */
  cost: number;
  /** Input tokens reserved by model calls in flight (estimates, not yet reconciled). */
  reservedInputTokens: number;
}

/**
 * The shared ledger of a budget: usage and cost spent, input tokens reserved by calls in flight,
 * and which warnings / overruns were already reported. Hand the same tracker to the
 * `budgetMiddleware` of a parent agent and of its sub-agents to enforce one budget over the whole
 * tree. Reservations are keyed by an object (the middleware uses one key per dispatched model call,
 * held only while that call is in flight).
 */
export class BudgetTracker {
  private spent: Usage = emptyUsage();
  private spentCost = 0;
  private readonly reservations = new Map<object, number>();
  private reserved = 0;
  private readonly reported = new Set<string>();

  /** A copy of the counters. */
  snapshot(): BudgetSnapshot {
    return { usage: { ...this.spent }, cost: this.spentCost, reservedInputTokens: this.reserved };
  }

  /** Reserve `inputTokens` for the call in flight under `key` (replacing its previous reservation). */
  reserve(key: object, inputTokens: number): void {
    this.release(key);
    this.reservations.set(key, inputTokens);
    this.reserved += inputTokens;
  }

  /** Drop the reservation under `key`; returns how many tokens it held (0 when none). */
  release(key: object): number {
    const held = this.reservations.get(key);
    if (held === undefined) return 0;
    this.reservations.delete(key);
    this.reserved -= held;
    return held;
  }

  /** Add one call's reported usage and cost (USD). */
  record(usage: Usage, cost = 0): void {
    this.spent = addUsage(this.spent, usage);
    this.spentCost += cost;
  }

  /** True the first time it is called with `key`, false afterwards (one-time warnings). */
  firstReport(key: string): boolean {
    if (this.reported.has(key)) return false;
    this.reported.add(key);
    return true;
  }

  /** Forget everything (a new budget period). */
  reset(): void {
    this.spent = emptyUsage();
    this.spentCost = 0;
    this.reservations.clear();
    this.reserved = 0;
    this.reported.clear();
  }
}
