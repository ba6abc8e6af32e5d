import { type ResponseFormat, validationError } from "@tinyagents/inference";
import { DEFAULT_RUN_LIMITS, type RunLimits } from "../limits/run-limits.js";
import { validateRunLimits } from "../limits/validate-run-limits.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "../retry/retry-policy.js";
import { validateRetryPolicy } from "../retry/validate-retry-policy.js";

/** What to do when the model calls a tool that is not registered. */
export type UnknownToolPolicy = "fail" | "returnError" | { rewrite: string };

/** What to do when the model's tool arguments are invalid. */
export type InvalidArgsPolicy = "fail" | "returnError" | "normalizeThenReturnError";

/** Everything the loop enforces. */
export interface RunPolicy {
  limits: RunLimits;
  retry: RetryPolicy;
  /** Registered model names to try, in order, when the resolved model keeps failing. */
  fallback: string[];
  unknownTool: UnknownToolPolicy;
  invalidArgs: InvalidArgsPolicy;
  /** Applied to every request that has none of its own. */
  responseFormat?: ResponseFormat;
  /** Fail with `empty_response` instead of returning a blank final answer. */
  errorOnEmptyResponse: boolean;
  /**
   * Fail with `validation` when a `beforeModel` middleware changes the request's cacheable prompt
   * prefix without declaring `changes: "prefix"` (default false: the change is only reported as a
   * `cache.layout_changed` event).
   */
  protectPromptPrefix: boolean;
}

/** A policy with every default filled in. */
export function defaultRunPolicy(): RunPolicy {
  return {
    limits: { ...DEFAULT_RUN_LIMITS },
    retry: { ...DEFAULT_RETRY_POLICY },
    fallback: [],
    unknownTool: "returnError",
    invalidArgs: "returnError",
    errorOnEmptyResponse: false,
    protectPromptPrefix: false,
  };
}

/** A partial policy merged over the defaults (limits and retry merged field by field). */
export type RunPolicyInput = Partial<Omit<RunPolicy, "limits" | "retry">> & {
  limits?: Partial<RunLimits>;
  retry?: Partial<RetryPolicy>;
};

/**
 * Merge a partial policy over `base`. Limits and retry settings are checked first (the same
 * checks `RunConfig` and the retry middleware use): a `NaN`, string, negative or fractional count
 * is a `validation` error naming the field, never a silently removed cap.
 */
export function mergeRunPolicy(base: RunPolicy, input: RunPolicyInput, where = "policy"): RunPolicy {
  if (typeof input !== "object" || input === null) {
    throw validationError(`${where}: pass a partial RunPolicy object`, { field: "policy" });
  }
  validateRunLimits(where, input.limits);
  validateRetryPolicy(where, input.retry);
  return {
    ...base,
    ...input,
    limits: { ...base.limits, ...input.limits },
    retry: { ...base.retry, ...input.retry },
  } as RunPolicy;
}
