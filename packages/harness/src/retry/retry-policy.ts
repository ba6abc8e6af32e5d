import { ProviderError, TinyAgentsError } from "@tinyagents/inference";

/**
 * How failed model calls are retried. Backoff is `initialBackoffMs * multiplier^(attempt-1)`,
 * capped at `maxBackoffMs`, plus up to `jitter` (a fraction) of random spread. A provider's
 * Retry-After wins when present, capped at `retryAfterCapMs`.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3; RunLimits.maxRetriesPerCall caps it). */
  maxRetries: number;
  initialBackoffMs: number;
  multiplier: number;
  maxBackoffMs: number;
  /** 0..1 fraction of random spread added to each delay (default 0: deterministic). */
  jitter: number;
  retryAfterCapMs: number;
}

/** Defaults matching the original: 200 ms x 2^n, cap 30 s, no jitter, Retry-After cap 120 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialBackoffMs: 200,
  multiplier: 2,
  maxBackoffMs: 30_000,
  jitter: 0,
  retryAfterCapMs: 120_000,
};

/** Whether an error is worth retrying on the same model: only retryable provider failures and timeouts of one call. */
export function isRetryable(error: unknown): boolean {
  if (ProviderError.isProviderError(error)) return error.retryable;
  return false;
}

/** Whether an error should move on to the next model in a fallback chain. */
export function shouldFallback(error: unknown): boolean {
  if (ProviderError.isProviderError(error)) {
    return error.retryable || error.kind === "quota_exhausted" || error.kind === "context_overflow";
  }
  return TinyAgentsError.isInstance(error, "timeout") && error.details?.scope === "model_call";
}

/** Delay before retry number `attempt` (1-based) after `error`. */
export function backoffFor(
  policy: RetryPolicy,
  attempt: number,
  error: unknown,
  random = Math.random,
): number {
  const hinted = ProviderError.isProviderError(error) ? error.retryAfterMs : undefined;
  if (hinted !== undefined) return Math.min(Math.max(0, hinted), policy.retryAfterCapMs);
  const base = Math.min(policy.initialBackoffMs * policy.multiplier ** (attempt - 1), policy.maxBackoffMs);
  return Math.round(base + base * policy.jitter * random());
}
