import {
  defaultTokenCounter,
  type Message,
  type TokenCounter,
  type ToolMessage,
  text,
  validationError,
} from "@tinyagents/inference";
import { historyRange, replaceHistory } from "../../cache/edit-history.js";
import { CompressionLog } from "../../events/compression-record.js";
import type { Middleware } from "../../middleware/middleware.js";
import { messageId } from "../message-ids.js";
import { messagesTokens } from "../token-estimates.js";
import { historySegmentIds, RunState, recordCompression } from "./record-compression.js";

/** Options of {@link microcompactMiddleware}. */
export interface MicrocompactOptions {
  /** The most recent tool results always kept intact (default 3). */
  keepRecent?: number;
  /** What an old tool result's body becomes (default "[tool result cleared to save context]"). */
  placeholder?: string;
  /**
   * Only compact while the history is over this many estimated tokens, oldest results first
   * (default: compact every tool result older than the `keepRecent` most recent).
   */
  tokenBudget?: number;
  /** Default `"microcompact"`. */
  name?: string;
  counter?: TokenCounter;
  /** Records kept in `log` (default 1,024). */
  maxRecords?: number;
}

/** A microcompact middleware, with its compression log. */
export interface MicrocompactMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly log: CompressionLog;
}

/**
 * Blank the bodies of old tool results in model requests (the tool message stays, so the call
 * and its answer remain paired; only its content becomes `placeholder`). The `keepRecent` most
 * recent tool results are never touched; with `tokenBudget`, only as many of the oldest are
 * blanked as needed to get the history under it.
 *
 * Cache-aware: a result blanked once stays blanked, with the same placeholder message, on every
 * later request of the run, so each result changes the cacheable prefix once. Only requests
 * change; the run's transcript keeps the full results. Declares `changes: "prefix"`. Each turn
 * that blanks results records them (`kind: "microcompact"`, `sourceIds` = the blanked tool
 * messages) and emits `context.compressed`. Throws `validation` for bad options.
 */
export function microcompactMiddleware<State = unknown, Ctx = unknown>(
  options: MicrocompactOptions = {},
): MicrocompactMiddleware<State, Ctx> {
  const name = options.name ?? "microcompact";
  const keepRecent = options.keepRecent ?? 3;
  if (!Number.isInteger(keepRecent) || keepRecent < 0) {
    throw validationError(`microcompactMiddleware: keepRecent must be an integer >= 0, got ${keepRecent}`, {
      field: "keepRecent",
    });
  }
  const budget = options.tokenBudget;
  if (budget !== undefined && !(Number.isInteger(budget) && budget >= 0)) {
    throw validationError(`microcompactMiddleware: tokenBudget must be an integer >= 0, got ${budget}`, {
      field: "tokenBudget",
    });
  }
  const placeholder = options.placeholder ?? "[tool result cleared to save context]";
  const counter = options.counter ?? defaultTokenCounter;
  const log = new CompressionLog(options.maxRecords);
  const runs = new RunState(() => new Map<Message, ToolMessage>());
  return {
    name,
    changes: "prefix",
    log,
    beforeModel(ctx, request) {
      const compacted = runs.of(ctx);
      const range = historyRange(request);
      const history = request.messages.slice(range.start, range.end);
      const toolIndices: number[] = [];
      history.forEach((m, i) => {
        if (m.role === "tool") toolIndices.push(i);
      });
      const candidates = toolIndices.slice(0, Math.max(0, toolIndices.length - keepRecent));
      const next = history.slice();
      let changed = false;
      for (const i of candidates) {
        const known = compacted.get(history[i] as Message);
        if (known !== undefined) {
          next[i] = known;
          changed = true;
        }
      }
      const tokensBefore = messagesTokens(next, counter);
      let tokens = tokensBefore;
      const fresh: number[] = [];
      for (const i of candidates) {
        if (budget !== undefined && tokens <= budget) break;
        const original = history[i] as ToolMessage;
        if (compacted.has(original) || text(original).length <= placeholder.length) continue;
        const blank: ToolMessage = { ...original, content: [{ type: "text", text: placeholder }] };
        compacted.set(original, blank);
        tokens += counter.countMessage(blank) - counter.countMessage(original);
        next[i] = blank;
        fresh.push(i);
        changed = true;
      }
      if (fresh.length > 0) {
        recordCompression(ctx, log, "", {
          by: name,
          kind: "microcompact",
          reason:
            budget === undefined
              ? `blanked ${fresh.length} tool result(s) older than the ${keepRecent} most recent`
              : `history over ${budget} estimated tokens: blanked ${fresh.length} old tool result(s), keeping the ${keepRecent} most recent`,
          sourceIds: fresh.map((i) => messageId(history[i] as Message, range.start + i)),
          tokensBefore,
          tokensAfter: messagesTokens(next, counter),
          segments: historySegmentIds(request),
        });
      }
      return changed ? replaceHistory(request, next) : undefined;
    },
  };
}
