import { validationError } from "@tinyagents/inference";
import { checkOptionalSetting } from "../limits/check-setting.js";
import type { RetryPolicy } from "./retry-policy.js";

/**
 * Check a partial `RetryPolicy` (fields that are present): `maxRetries` an integer >= 0, the
 * delays finite numbers >= 0, `multiplier` >= 1 (backoff never shrinks), `jitter` in [0, 1].
 * Throws a `validation` error naming `where` and `<prefix>.<field>`.
 */
export function validateRetryPolicy(where: string, retry: unknown, prefix = "retry"): void {
  if (retry === undefined) return;
  if (typeof retry !== "object" || retry === null || Array.isArray(retry)) {
    throw validationError(`${where}: \`${prefix}\` must be an object of RetryPolicy fields`, {
      field: prefix,
    });
  }
  const r = retry as Partial<Record<keyof RetryPolicy, unknown>>;
  checkOptionalSetting(where, `${prefix}.maxRetries`, r.maxRetries, { min: 0, integer: true });
  checkOptionalSetting(where, `${prefix}.initialBackoffMs`, r.initialBackoffMs, { min: 0 });
  checkOptionalSetting(where, `${prefix}.multiplier`, r.multiplier, { min: 1 });
  checkOptionalSetting(where, `${prefix}.maxBackoffMs`, r.maxBackoffMs, { min: 0 });
  checkOptionalSetting(where, `${prefix}.jitter`, r.jitter, { min: 0, max: 1 });
  checkOptionalSetting(where, `${prefix}.retryAfterCapMs`, r.retryAfterCapMs, { min: 0 });
}
