import type { Clock } from "../clock/clock.js";
import { abortedError } from "../errors/normalize.js";
import { ProviderError } from "../errors/provider-error.js";
import { validationError } from "../errors/tinyagents-error.js";

/** How an embedding adapter retries a failed request. */
export interface EmbeddingRetryPolicy {
  /** Retries after the first attempt (default 2; 0 disables retrying). */
  maxRetries: number;
  /** Wait before the first retry when the provider gives no `retry-after` (default 500 ms; doubles each time). */
  initialBackoffMs: number;
  /**
   * The longest wait allowed (default 30 s). Backoff is capped at it; a `retry-after` longer than
   * it is not waited out: the error is thrown at once, for the caller to decide.
   */
  maxDelayMs: number;
}

/** The default retry policy: 2 retries, 500 ms doubling backoff, waits of at most 30 s. */
export const DEFAULT_EMBEDDING_RETRY: Readonly<EmbeddingRetryPolicy> = Object.freeze({
  maxRetries: 2,
  initialBackoffMs: 500,
  maxDelayMs: 30_000,
});

/** A full policy from partial settings, validated (`validation` error for negative or non-integer values). */
export function resolveEmbeddingRetry(
  policy: Partial<EmbeddingRetryPolicy> | undefined,
): EmbeddingRetryPolicy {
  const out = { ...DEFAULT_EMBEDDING_RETRY, ...policy };
  for (const key of ["maxRetries", "initialBackoffMs", "maxDelayMs"] as const) {
    const value = out[key];
    if (!Number.isFinite(value) || value < 0 || (key === "maxRetries" && !Number.isInteger(value))) {
      throw validationError(
        `embedding retry.${key} must be a non-negative ${key === "maxRetries" ? "integer" : "number"} (got ${value})`,
        {
          field: `retry.${key}`,
        },
      );
    }
  }
  return out;
}

/**
 * Run `attempt`, retrying a retryable `ProviderError` (rate limited, overloaded, transient) up to
 * `policy.maxRetries` times. Each wait is the error's `retryAfterMs` when given, else the
 * doubling backoff capped at `maxDelayMs`, and happens through `clock.sleep` (so a test clock
 * never really waits). Anything else — and a `retry-after` beyond `maxDelayMs` — is thrown as is.
 * An abort during a wait throws the `cancelled` / `timeout` error for `what`.
 */
export async function withEmbeddingRetry<T>(
  attempt: () => Promise<T>,
  policy: EmbeddingRetryPolicy,
  clock: Clock,
  signal: AbortSignal | undefined,
  what: string,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!ProviderError.isProviderError(error) || !error.retryable || retry >= policy.maxRetries)
        throw error;
      const asked = error.retryAfterMs;
      if (asked !== undefined && asked > policy.maxDelayMs) throw error;
      const wait = asked ?? Math.min(policy.maxDelayMs, policy.initialBackoffMs * 2 ** retry);
      try {
        await clock.sleep(wait, signal);
      } catch (sleepError) {
        if (signal?.aborted === true) throw abortedError(signal, what);
        throw sleepError;
      }
    }
  }
}
