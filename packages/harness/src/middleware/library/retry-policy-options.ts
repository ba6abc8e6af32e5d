import type { TinyAgentsError } from "@tinyagents/inference";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../../retry/retry-policy.js";
import { validateRetryPolicy } from "../../retry/validate-retry-policy.js";
import { optionError } from "./option-checks.js";

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
  try {
    validateRetryPolicy(middleware, input, "policy");
  } catch (error) {
    const field = String((error as TinyAgentsError).details?.field ?? "policy");
    throw optionError(middleware, field, (error as Error).message.replace(/^[^`]*`[^`]*` /, ""));
  }
  return { ...base, ...(input as Partial<RetryPolicy>) };
}
