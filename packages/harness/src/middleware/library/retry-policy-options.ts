import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../retry/retry-policy.js";
import { fraction, nonNegative, optionError, positive } from "./option-checks.js";

/**
 * `DEFAULT_RETRY_POLICY` (or `base`) with `input` merged over it, every field checked: negative
 * or non-finite numbers fail with a `validation` error naming `policy.<field>` and the middleware.
 */
export function retryPolicyOption(
  middleware: string,
  input: unknown,
  base: RetryPolicy = DEFAULT_RETRY_POLICY,
): RetryPolicy {
  if (input === undefined) return { ...base };
  if (typeof input !== "object" || input === null)
    throw optionError(middleware, "policy", "must be a partial RetryPolicy object");
  const policy: RetryPolicy = { ...base, ...(input as Partial<RetryPolicy>) };
  nonNegative(middleware, "policy.maxRetries", policy.maxRetries, true);
  nonNegative(middleware, "policy.initialBackoffMs", policy.initialBackoffMs);
  positive(middleware, "policy.multiplier", policy.multiplier);
  nonNegative(middleware, "policy.maxBackoffMs", policy.maxBackoffMs);
  nonNegative(middleware, "policy.retryAfterCapMs", policy.retryAfterCapMs);
  if (policy.jitter !== 0) fraction(middleware, "policy.jitter", policy.jitter);
  return policy;
}
