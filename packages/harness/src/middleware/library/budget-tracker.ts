import { addUsage, emptyUsage, type Usage } from "@tinyagents/inference";

/** What a {@link BudgetTracker} has counted so far. Plain JSON data. */
export interface BudgetSnapshot {
  usage: Usage;
  /** US dollars. */
  cost: number;
  /** Input tokens reserved by model calls in flight (estimates, not yet reconciled). */
  reservedInputTokens: number;
}

/** A keyless reservation of a {@link BudgetTracker} (see `hold`). */
export interface BudgetHold {
  readonly inputTokens: number;
  /** The tracker's `reset` count when it was taken. */
  readonly epoch: number;
  released: boolean;
}

/** What one run spent through a budget middleware: usage and cost (US dollars). Plain JSON data. */
export interface BudgetSpend {
  usage: Usage;
  cost: number;
}

/**
 * The shared ledger of a budget: usage and cost spent, input tokens reserved by calls in flight,
 * and which warnings / overruns were already reported. Hand the same tracker to the
 * `budgetMiddleware` of a parent agent and of its sub-agents to enforce one budget over the whole
 * tree. Reservations are keyed by an object (the middleware uses one key per dispatched model call,
 * held only while that call is in flight).
 *
 * Paused runs: the ledger remembers what each run that paused against it had spent (a few numbers
 * per paused run, until `reset`), so that resuming the run counts its earlier spending exactly
 * once — not again when it paused here, in full when it paused elsewhere (another process, a
 * fresh tracker). See {@link BudgetTracker.notePaused} and {@link BudgetTracker.countResumed}.
 */
export class BudgetTracker {
  private spent: Usage = emptyUsage();
  private spentCost = 0;
  private readonly reservations = new Map<object, number>();
  private reserved = 0;
  /** Bumped by `reset`: a hold taken before it no longer counts, and is not released twice. */
  private epoch = 0;
  private readonly reported = new Set<string>();
  /** Spending of paused (and resumed) runs already included in `spent`, by run id. */
  private readonly pausedRuns = new Map<string, BudgetSpend>();

  /** Usage spent so far (read-only, not a copy: it is replaced, never edited, as calls are recorded). */
  get usage(): Readonly<Usage> {
    return this.spent;
  }

  /** Cost spent so far, US dollars. */
  get cost(): number {
    return this.spentCost;
  }

  /** Input tokens reserved by model calls in flight. */
  get reservedInputTokens(): number {
    return this.reserved;
  }

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

  /**
   * Reserve `inputTokens` without a key: the returned hold is released with {@link releaseHold}.
   * What `budgetMiddleware` takes per dispatched call — no keyed table entry to add and delete
   * per call. Counted in `reservedInputTokens` like keyed reservations; `reset` drops it.
   */
  hold(inputTokens: number): BudgetHold {
    this.reserved += inputTokens;
    return { inputTokens, epoch: this.epoch, released: false };
  }

  /** Release a {@link BudgetTracker.hold | hold} (once; nothing when `reset` came after it). */
  releaseHold(hold: BudgetHold): void {
    if (hold.released) return;
    hold.released = true;
    if (hold.epoch === this.epoch) this.reserved -= hold.inputTokens;
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

  /**
   * The run `runId` paused having spent `spent`, all of it already recorded in this ledger:
   * remember that, so {@link countResumed} does not count it again when the run resumes here.
   */
  notePaused(runId: string, spent: BudgetSpend): void {
    this.pausedRuns.set(runId, maxSpend(this.pausedRuns.get(runId), spent));
  }

  /**
   * The paused run `runId` resumes against this ledger, having spent `spent` before it paused:
   * record the part this ledger has not counted for it yet — all of it when the run paused
   * against another ledger (another process), nothing when it paused here or was resumed here
   * before (idempotent, field by field). Returns the part added.
   */
  countResumed(runId: string, spent: BudgetSpend): BudgetSpend {
    const known = this.pausedRuns.get(runId);
    const added: BudgetSpend = {
      usage: {
        inputTokens: above(spent.usage.inputTokens, known?.usage.inputTokens),
        outputTokens: above(spent.usage.outputTokens, known?.usage.outputTokens),
        totalTokens: above(spent.usage.totalTokens, known?.usage.totalTokens),
        cacheReadTokens: above(spent.usage.cacheReadTokens, known?.usage.cacheReadTokens),
        cacheWriteTokens: above(spent.usage.cacheWriteTokens, known?.usage.cacheWriteTokens),
        reasoningTokens: above(spent.usage.reasoningTokens, known?.usage.reasoningTokens),
      },
      cost: above(spent.cost, known?.cost),
    };
    this.record(added.usage, added.cost);
    this.pausedRuns.set(runId, maxSpend(known, spent));
    return added;
  }

  /** Forget everything (a new budget period), paused runs included. */
  reset(): void {
    this.spent = emptyUsage();
    this.spentCost = 0;
    this.reservations.clear();
    this.reserved = 0;
    this.epoch++;
    this.reported.clear();
    this.pausedRuns.clear();
  }
}

function above(value: number, known: number | undefined): number {
  return Math.max(0, value - (known ?? 0));
}

function maxSpend(known: BudgetSpend | undefined, b: BudgetSpend): BudgetSpend {
  const a = known ?? { usage: emptyUsage(), cost: 0 };
  return {
    usage: {
      inputTokens: Math.max(a.usage.inputTokens, b.usage.inputTokens),
      outputTokens: Math.max(a.usage.outputTokens, b.usage.outputTokens),
      totalTokens: Math.max(a.usage.totalTokens, b.usage.totalTokens),
      cacheReadTokens: Math.max(a.usage.cacheReadTokens, b.usage.cacheReadTokens),
      cacheWriteTokens: Math.max(a.usage.cacheWriteTokens, b.usage.cacheWriteTokens),
      reasoningTokens: Math.max(a.usage.reasoningTokens, b.usage.reasoningTokens),
    },
    cost: Math.max(a.cost, b.cost),
  };
}
