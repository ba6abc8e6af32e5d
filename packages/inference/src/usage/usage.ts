import type { JsonValue } from "../json/json-value.js";

/**
 * Token usage of one model call, normalized once in the provider adapter.
 *
 * The rule every adapter follows, whatever its wire format says:
 * - `inputTokens` counts ALL prompt tokens, cached ones included. `cacheReadTokens` and
 *   `cacheWriteTokens` are subsets of `inputTokens`, never additions to it. (Anthropic reports
 *   cache tokens beside `input_tokens`; its adapter adds them in. OpenAI reports them inside.)
 * - `outputTokens` counts ALL generated tokens, reasoning included; `reasoningTokens` is a subset.
 * - `totalTokens` is `inputTokens + outputTokens` unless the provider reported its own total.
 * - `raw` keeps the provider's usage object for audit; it is never summed.
 *
 * Cost is computed from this shape, so cache tokens are never counted twice.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  raw?: JsonValue;
}

/**
 * Usage folded over many calls: the token counts flat (`run.usage.inputTokens`), plus how many
 * calls reported usage. Assignable to `Usage` (it has no `raw`: that belongs to one call).
 *
 * `unknown: true` means at least one call reported NO usage (a stream without a usage chunk, a
 * server that omits it): the counts then cover only the calls that did, and are a lower bound,
 * never a silent zero.
 */
export interface UsageTotals {
  /** Calls whose usage was folded in. */
  calls: number;
  /** Set when some call reported no usage: the counts are a lower bound (see the type's doc). */
  unknown?: true;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

/** A zero usage record. */
export function emptyUsage(): Usage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/** Build a usage record from partial counts, filling the rest and deriving `totalTokens`. */
export function usage(parts: Partial<Omit<Usage, "raw">> & { raw?: JsonValue }): Usage {
  const inputTokens = parts.inputTokens ?? 0;
  const outputTokens = parts.outputTokens ?? 0;
  const result: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: parts.totalTokens ?? inputTokens + outputTokens,
    cacheReadTokens: parts.cacheReadTokens ?? 0,
    cacheWriteTokens: parts.cacheWriteTokens ?? 0,
    reasoningTokens: parts.reasoningTokens ?? 0,
  };
  if (parts.raw !== undefined) result.raw = parts.raw;
  return result;
}

/** Sum two usage records field by field. `raw` is dropped: it belongs to one call. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/** Empty totals. */
export function emptyUsageTotals(): UsageTotals {
  return {
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

/** Fold one call's usage into totals (returns a new object). */
export function recordUsage(totals: UsageTotals, call: Usage): UsageTotals {
  const sum: UsageTotals = {
    calls: totals.calls + 1,
    inputTokens: totals.inputTokens + call.inputTokens,
    outputTokens: totals.outputTokens + call.outputTokens,
    totalTokens: totals.totalTokens + call.totalTokens,
    cacheReadTokens: totals.cacheReadTokens + call.cacheReadTokens,
    cacheWriteTokens: totals.cacheWriteTokens + call.cacheWriteTokens,
    reasoningTokens: totals.reasoningTokens + call.reasoningTokens,
  };
  if (totals.unknown === true) sum.unknown = true;
  return sum;
}

/** Add two totals (a child run's into its parent's). Unknown when either is. */
export function addUsageTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  const sum = recordUsage(a, b);
  sum.calls = a.calls + b.calls;
  if (b.unknown === true) sum.unknown = true;
  return sum;
}

/** A copy of `totals` flagged as a lower bound: some call reported no usage. */
export function markUsageUnknown(totals: UsageTotals): UsageTotals {
  return { ...totals, unknown: true };
}

/** Inputs that were not served from the provider's prompt cache. */
export function uncachedInputTokens(u: Usage): number {
  return Math.max(0, u.inputTokens - u.cacheReadTokens - u.cacheWriteTokens);
}
