import { defaultTokenCounter, type Message, type TokenCounter, validationError } from "@tinyagents/inference";
import { historyRange, replaceHistory } from "../../cache/edit-history.js";
import { CompressionLog } from "../../events/compression-record.js";
import type { Middleware } from "../../middleware/middleware.js";
import { messageId } from "../message-ids.js";
import { messagesTokens } from "../token-estimates.js";
import { planTrim, type TrimStrategy } from "../trim-messages.js";
import { historySegmentIds, recordCompression } from "./record-compression.js";

/** Options of {@link messageTrimMiddleware}. */
export interface MessageTrimOptions {
  /** Default `"message_trim"`. */
  name?: string;
  counter?: TokenCounter;
  /** See `TrimOptions.startOnUser`. */
  startOnUser?: boolean;
  /** Records kept in `log` (default 1,024). */
  maxRecords?: number;
}

/** A middleware that trims requests, with its compression log. */
export interface MessageTrimMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly log: CompressionLog;
}

/**
 * Trim the conversation history of every model request with `trimMessages` (system messages
 * kept, tool pairs never split). Only the request is trimmed: the run's transcript keeps every
 * message. Declares `changes: "prefix"` — dropping old messages changes the cacheable history, so
 * each trim that drops something costs the provider's prefix cache from that point on (prefer
 * `contextCompressionMiddleware` for long runs: it changes the prefix once per compression).
 * Each trim that removes messages is recorded (`kind: "trim"`, `sourceIds` = exactly the
 * removed messages' `messageId`s) and emitted as `context.compressed`.
 * Throws `validation` at construction for a bad strategy.
 */
export function messageTrimMiddleware<State = unknown, Ctx = unknown>(
  strategy: TrimStrategy,
  options: MessageTrimOptions = {},
): MessageTrimMiddleware<State, Ctx> {
  const name = options.name ?? "message_trim";
  planTrim([], strategy); // validates the strategy now, not on the first model call
  if (typeof name !== "string" || name === "")
    throw validationError("messageTrimMiddleware: name must be a non-empty string", { field: "name" });
  const counter = options.counter ?? defaultTokenCounter;
  const log = new CompressionLog(options.maxRecords);
  return {
    name,
    changes: "prefix",
    log,
    beforeModel(ctx, request) {
      const range = historyRange(request);
      const history = request.messages.slice(range.start, range.end);
      const plan = planTrim(history, strategy, {
        counter,
        ...(options.startOnUser === undefined ? {} : { startOnUser: options.startOnUser }),
      });
      if (plan.remove.length === 0) return undefined;
      const kept = plan.keep.map((i) => history[i] as Message);
      recordCompression(ctx, log, "", {
        by: name,
        kind: "trim",
        reason: `history trimmed by ${describeStrategy(strategy)}: ${plan.remove.length} of ${history.length} message(s) removed`,
        sourceIds: plan.remove.map((i) => messageId(history[i] as Message, range.start + i)),
        tokensBefore: messagesTokens(history, counter),
        tokensAfter: messagesTokens(kept, counter),
        segments: historySegmentIds(request),
      });
      return replaceHistory(request, kept);
    },
  };
}

function describeStrategy(strategy: TrimStrategy): string {
  switch (strategy.kind) {
    case "keepLast":
      return `keepLast(${strategy.count})`;
    case "keepFirstAndLast":
      return `keepFirstAndLast(${strategy.first}, ${strategy.last})`;
    case "maxTokens":
      return `maxTokens(${strategy.maxTokens})`;
  }
}
