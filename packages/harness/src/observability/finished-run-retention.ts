/**
 * The `evictBatch` the database status stores (SQLite, Postgres) use: 1/128 of
 * `maxFinishedRuns`, between 1 (a bound under 256 stays exact) and 64. Deleting one row touches a
 * leaf page of each of the table's indexes (and on Postgres costs a statement, a round trip after
 * a one-statement commit); the oldest rows of a batch share their pages, so a batch writes a few
 * pages where one-by-one eviction wrote several per finished run, at every commit of a store at
 * its bound.
 */
export function databaseEvictBatch(maxFinishedRuns: number): number {
  return Math.max(1, Math.min(64, Math.floor(maxFinishedRuns / 128)));
}

/**
 * Keeps one writer's count of finished runs in a status store, so that finishing a run costs
 * O(1) amortized however many runs are stored (issue 37): the count is kept in memory and
 * advanced per finished save, and the O(rows) real count runs only when nothing is known yet or
 * after `max(256, maxFinishedRuns)` finished saves — the finished rows are bounded by
 * `maxFinishedRuns`, so that recount is O(1) amortized too. Past the bound, the store evicts
 * the excess, oldest finished first: by default exactly (one row per finished save in the
 * steady state); with `evictBatch` n, once the excess reaches n (n rows per n finished saves),
 * so the newest `maxFinishedRuns` are always kept and at most n - 1 more.
 *
 * With one writer the count is exact, so the bound is exact; other processes' finished runs are
 * seen at the next recount, so the table may briefly hold up to one recount interval more per
 * writer.
 */
export class FinishedRunRetention {
  readonly maxFinishedRuns: number;
  /** Rows of excess that trigger an eviction (1: evict at once, exactly the bound). */
  readonly evictBatch: number;
  private readonly recountEvery: number;
  private estimate: number | undefined;
  private sinceCount = 0;

  /**
   * @param maxFinishedRuns finished runs the store keeps at least (the newest).
   * @param options.evictBatch rows of excess to wait for before evicting (default 1: exact bound).
   */
  constructor(maxFinishedRuns: number, options: { evictBatch?: number } = {}) {
    this.maxFinishedRuns = maxFinishedRuns;
    this.evictBatch = Math.max(1, Math.floor(options.evictBatch ?? 1));
    this.recountEvery = Math.max(256, maxFinishedRuns);
  }

  /**
   * A run newly finished: `"recount"` when the store must count its finished rows now (then
   * call {@link counted}), else how many of the oldest finished rows to evict (often 0).
   */
  finished(): "recount" | number {
    this.sinceCount++;
    if (this.estimate === undefined || this.sinceCount >= this.recountEvery) return "recount";
    this.estimate++;
    const excess = this.estimate - this.maxFinishedRuns;
    if (excess < this.evictBatch) return 0;
    this.estimate = this.maxFinishedRuns;
    return excess;
  }

  /**
   * Forget the count (the next finished run recounts): a transaction that advanced it rolled
   * back, so the rows it counted may not exist.
   */
  forget(): void {
    this.estimate = undefined;
  }

  /** The real count of finished rows; returns how many of the oldest to evict. */
  counted(finishedRows: number): number {
    this.sinceCount = 0;
    const excess = finishedRows - this.maxFinishedRuns;
    if (excess < this.evictBatch) {
      this.estimate = finishedRows;
      return 0;
    }
    this.estimate = this.maxFinishedRuns;
    return excess;
  }
}
