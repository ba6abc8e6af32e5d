import { type Message, type ModelProfile, type TokenCounter, validationError } from "@tinyagents/inference";
import { type MessageUnit, messageUnits } from "./message-units.js";
import { messagesTokens } from "./token-estimates.js";

/**
 * When to summarize and what to keep. Plain data; build it with {@link summarizationPolicy} (or
 * {@link summarizationPolicyFromProfile}) to get defaults and validation.
 */
export interface SummarizationPolicy {
  /** Summarize when the messages exceed this many estimated tokens (optional when `contextWindow` is set). */
  triggerTokens?: number;
  /** Recent non-system messages always kept verbatim (default 6). */
  keepLast: number;
  /** The model's context window; with it, the trigger is at most `contextWindow * thresholdFraction`. */
  contextWindow?: number;
  /** Fraction of the context window that triggers summarization (default 0.9). */
  thresholdFraction: number;
}

/** What {@link summarizationPolicy} accepts. */
export type SummarizationPolicyInput = Partial<SummarizationPolicy>;

/**
 * A validated policy with defaults (`keepLast` 6, `thresholdFraction` 0.9). Needs `triggerTokens`
 * or `contextWindow`. Throws `validation` naming the bad field.
 */
export function summarizationPolicy(input: SummarizationPolicyInput): SummarizationPolicy {
  const policy: SummarizationPolicy = {
    keepLast: input.keepLast ?? 6,
    thresholdFraction: input.thresholdFraction ?? 0.9,
  };
  if (!Number.isInteger(policy.keepLast) || policy.keepLast < 0)
    fail("keepLast", "an integer >= 0", policy.keepLast);
  if (!(policy.thresholdFraction > 0 && policy.thresholdFraction <= 1)) {
    fail("thresholdFraction", "a number in (0, 1]", policy.thresholdFraction);
  }
  if (input.triggerTokens !== undefined) {
    if (!Number.isInteger(input.triggerTokens) || input.triggerTokens <= 0) {
      fail("triggerTokens", "a positive integer", input.triggerTokens);
    }
    policy.triggerTokens = input.triggerTokens;
  }
  if (input.contextWindow !== undefined) {
    if (!Number.isInteger(input.contextWindow) || input.contextWindow <= 0) {
      fail("contextWindow", "a positive integer", input.contextWindow);
    }
    policy.contextWindow = input.contextWindow;
  }
  if (policy.triggerTokens === undefined && policy.contextWindow === undefined) {
    throw validationError(
      "summarizationPolicy: set triggerTokens, or contextWindow (for example from the model's profile with summarizationPolicyFromProfile)",
      { field: "triggerTokens" },
    );
  }
  return policy;
}

/**
 * A policy whose trigger follows a model's context window (`profile.contextWindow *
 * thresholdFraction`). Throws `validation` when the profile has no context window and `input`
 * gives no `triggerTokens`.
 */
export function summarizationPolicyFromProfile(
  profile: ModelProfile | undefined,
  input: SummarizationPolicyInput = {},
): SummarizationPolicy {
  return summarizationPolicy({
    ...input,
    ...(profile?.contextWindow === undefined ? {} : { contextWindow: profile.contextWindow }),
  });
}

/** The token count above which {@link shouldSummarize} says yes. */
export function triggerBudget(policy: SummarizationPolicy): number {
  const fromWindow =
    policy.contextWindow === undefined
      ? Number.POSITIVE_INFINITY
      : Math.floor(policy.contextWindow * policy.thresholdFraction);
  return Math.min(policy.triggerTokens ?? Number.POSITIVE_INFINITY, fromWindow);
}

/** Whether `messages` exceed the policy's trigger budget (estimated tokens, memoized per message). */
export function shouldSummarize(
  messages: readonly Message[],
  policy: SummarizationPolicy,
  counter?: TokenCounter,
): boolean {
  return messagesTokens(messages, counter) > triggerBudget(policy);
}

/** What {@link planSummarization} decided, by index into the input (ascending). */
export interface SummarizationPlan {
  /** Older non-system messages to fold into a summary. */
  summarize: number[];
  /** System messages and the recent messages kept verbatim. */
  keep: number[];
}

/**
 * Split `messages` into older messages to summarize and messages to keep: every system message
 * and at least the last `keepLast` non-system messages are kept; the boundary moves earlier
 * rather than split an assistant tool call from its tool results (a tool pair is never split).
 * Returns an empty `summarize` when there is nothing older than the kept window.
 */
export function planSummarization(
  messages: readonly Message[],
  policy: SummarizationPolicy,
): SummarizationPlan {
  const units = messageUnits(messages);
  const chat = units.filter((u) => !u.system);
  let kept = 0;
  let boundary = chat.length;
  while (boundary > 0 && kept < policy.keepLast) {
    const unit = chat[boundary - 1] as MessageUnit;
    kept += unit.end - unit.start;
    boundary--;
  }
  const older = new Set(chat.slice(0, boundary));
  const summarize: number[] = [];
  const keep: number[] = [];
  for (const unit of units) {
    const target = older.has(unit) ? summarize : keep;
    for (let i = unit.start; i < unit.end; i++) target.push(i);
  }
  return { summarize, keep };
}

function fail(field: string, expected: string, got: unknown): never {
  throw validationError(`summarizationPolicy: ${field} must be ${expected}, got ${String(got)}`, { field });
}
