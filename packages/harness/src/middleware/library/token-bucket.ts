/**
 * A token bucket: holds up to `capacity` tokens, refilled continuously at `refillPerSecond`.
 * Time is passed in (epoch ms from a `Clock`), so it works with virtual clocks. Starts full at
 * its first use.
 */
export class TokenBucket {
  readonly capacity: number;
  readonly refillPerSecond: number;
  private tokens: number;
  private updatedAt: number | undefined;

  constructor(capacity: number, refillPerSecond: number) {
    this.capacity = capacity;
    this.refillPerSecond = refillPerSecond;
    this.tokens = capacity;
  }

  /** Tokens available at `now`. */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /** Whether `amount` can ever be taken (it is not larger than the capacity). */
  canEverFit(amount: number): boolean {
    return amount <= this.capacity;
  }

  /** Milliseconds until `amount` is available (0 when it is now; Infinity when it never will be). */
  waitMs(amount: number, now: number): number {
    if (!this.canEverFit(amount)) return Number.POSITIVE_INFINITY;
    const missing = amount - this.available(now);
    if (missing <= 0) return 0;
    return Math.ceil((missing / this.refillPerSecond) * 1000);
  }

  /** Take `amount` at `now` (callers check `waitMs` first; the bucket never goes below zero). */
  take(amount: number, now: number): void {
    this.refill(now);
    this.tokens = Math.max(0, this.tokens - amount);
  }

  private refill(now: number): void {
    if (this.updatedAt === undefined) {
      this.updatedAt = now;
      return;
    }
    if (now <= this.updatedAt) return;
    this.tokens = Math.min(
      this.capacity,
      this.tokens + ((now - this.updatedAt) / 1000) * this.refillPerSecond,
    );
    this.updatedAt = now;
  }
}
