import type { IdGenerator } from "../ids/id-generator.js";

/**
 * Predictable ids for tests: `next("run")` returns `run-1`, then `run-2`; each prefix has its own
 * counter, so `next("call")` after two runs is `call-1`. `reset()` starts every counter again.
 */
export class DeterministicIds implements IdGenerator {
  private readonly counters = new Map<string, number>();

  /** `${prefix}-${n}`, where `n` counts calls with this prefix, starting at 1. */
  next(prefix: string): string {
    const n = (this.counters.get(prefix) ?? 0) + 1;
    this.counters.set(prefix, n);
    return `${prefix}-${n}`;
  }

  /** How many ids were issued for `prefix` (0 when none). */
  count(prefix: string): number {
    return this.counters.get(prefix) ?? 0;
  }

  /** Forget every counter: the next id of each prefix ends in `-1` again. */
  reset(): void {
    this.counters.clear();
  }
}
