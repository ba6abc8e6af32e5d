import { type Message, type TokenCounter, validationError } from "@tinyagents/inference";
import { type MessageUnit, messageUnits } from "./message-units.js";
import { messageTokens } from "./token-estimates.js";

/**
 * How {@link trimMessages} shortens a conversation. Counts are of non-system messages.
 * - `keepLast`: the last `count` messages;
 * - `keepFirstAndLast`: the first `first` and the last `last` messages (the opening task and the
 *   recent turns), dropping the middle;
 * - `maxTokens`: as many recent messages as fit in `maxTokens` together with the system messages.
 */
export type TrimStrategy =
  | { kind: "keepLast"; count: number }
  | { kind: "keepFirstAndLast"; first: number; last: number }
  | { kind: "maxTokens"; maxTokens: number };

/** Options of {@link trimMessages}. */
export interface TrimOptions {
  /** Token counter for `maxTokens` (default `defaultTokenCounter`). */
  counter?: TokenCounter;
  /**
   * Drop kept recent messages until the recent window starts with a user message (for
   * providers that require the conversation to open with a user turn). Default false.
   */
  startOnUser?: boolean;
}

/** Which messages a trim keeps and removes, by index into the input (both ascending). */
export interface TrimPlan {
  keep: number[];
  remove: number[];
}

/**
 * Decide what {@link trimMessages} keeps, without copying anything.
 *
 * Guarantees: system messages are always kept (in place); an assistant message with tool calls
 * and the tool messages answering them are kept or removed together, so trimming never orphans
 * a tool result or leaves a tool call unanswered; kept messages keep their order. Counts and
 * budgets are upper bounds: a tool group that does not fit whole is dropped with everything
 * before it. `maxTokens` keeps the system messages even when they alone exceed the budget.
 * Throws `validation` for negative or non-integer counts.
 */
export function planTrim(
  messages: readonly Message[],
  strategy: TrimStrategy,
  options: TrimOptions = {},
): TrimPlan {
  const units = messageUnits(messages);
  const chat = units.filter((u) => !u.system);
  const kept = new Set<MessageUnit>(units.filter((u) => u.system));
  switch (strategy?.kind) {
    case "keepLast": {
      const count = nonNegative(strategy.count, "count");
      for (const unit of window(chat, count, (u) => u.end - u.start, messages, options)) kept.add(unit);
      break;
    }
    case "keepFirstAndLast": {
      const first = nonNegative(strategy.first, "first");
      const last = nonNegative(strategy.last, "last");
      let used = 0;
      for (const unit of chat) {
        const size = unit.end - unit.start;
        if (used + size > first) break;
        used += size;
        kept.add(unit);
      }
      for (const unit of window(chat, last, (u) => u.end - u.start, messages, options)) kept.add(unit);
      break;
    }
    case "maxTokens": {
      const max = nonNegative(strategy.maxTokens, "maxTokens");
      const tokens = (u: MessageUnit) => {
        let total = 0;
        for (let i = u.start; i < u.end; i++) total += messageTokens(messages[i] as Message, options.counter);
        return total;
      };
      let systemTokens = 0;
      for (const unit of units) if (unit.system) systemTokens += tokens(unit);
      for (const unit of window(chat, Math.max(0, max - systemTokens), tokens, messages, options))
        kept.add(unit);
      break;
    }
    default:
      throw validationError(
        `trimMessages: unknown strategy ${JSON.stringify(strategy)}; use { kind: "keepLast", count }, ` +
          `{ kind: "keepFirstAndLast", first, last } or { kind: "maxTokens", maxTokens }`,
        { field: "strategy" },
      );
  }
  const keep: number[] = [];
  const remove: number[] = [];
  for (const unit of units) {
    const target = kept.has(unit) ? keep : remove;
    for (let i = unit.start; i < unit.end; i++) target.push(i);
  }
  return { keep, remove };
}

/**
 * `messages` shortened by `strategy` (see {@link planTrim} for the guarantees). Returns a new
 * array; the messages themselves are shared, never copied or edited.
 */
export function trimMessages(
  messages: readonly Message[],
  strategy: TrimStrategy,
  options: TrimOptions = {},
): Message[] {
  return planTrim(messages, strategy, options).keep.map((i) => messages[i] as Message);
}

/** The longest suffix of `chat` whose summed `size` fits in `budget`, optionally starting on a user turn. */
function window(
  chat: readonly MessageUnit[],
  budget: number,
  size: (unit: MessageUnit) => number,
  messages: readonly Message[],
  options: TrimOptions,
): MessageUnit[] {
  const picked: MessageUnit[] = [];
  let used = 0;
  for (let i = chat.length - 1; i >= 0; i--) {
    const unit = chat[i] as MessageUnit;
    const cost = size(unit);
    if (used + cost > budget) break;
    used += cost;
    picked.push(unit);
  }
  picked.reverse();
  if (options.startOnUser === true) {
    while (picked.length > 0 && messages[(picked[0] as MessageUnit).start]?.role !== "user") picked.shift();
  }
  return picked;
}

function nonNegative(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 0) {
    throw validationError(`trimMessages: ${field} must be an integer >= 0, got ${String(value)}`, { field });
  }
  return value;
}
