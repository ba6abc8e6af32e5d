import {
  defaultTokenCounter,
  type Message,
  type ModelRequest,
  system,
  TinyAgentsError,
  type TokenCounter,
  toTinyAgentsError,
  validationError,
} from "@tinyagents/inference";
import { historyRange, replaceHistory } from "../../cache/edit-history.js";
import { CompressionLog } from "../../events/compression-record.js";
import type { HookContext, Middleware } from "../../middleware/middleware.js";
import { messageId } from "../message-ids.js";
import { type MessageUnit, messageUnits } from "../message-units.js";
import { type SummarizationPolicy, summarizationPolicy, triggerBudget } from "../summarization-policy.js";
import { ConcatSummarizer, type Summarizer } from "../summarizer.js";
import { messagesTokens } from "../token-estimates.js";
import { trimMessages } from "../trim-messages.js";
import { historySegmentIds, RunState, recordCompression } from "./record-compression.js";

/** What `contextCompressionMiddleware` does when the summarizer fails. */
export type CompressionFailurePolicy = "abort" | "fallbackTrim" | "passThrough";

/** Options of {@link contextCompressionMiddleware}. */
export interface ContextCompressionOptions {
  /** Default `ConcatSummarizer` (LLM-free); use `LlmSummarizer` for real summaries. */
  summarizer?: Summarizer;
  /**
   * On a summarizer failure: `fallbackTrim` (default) keeps the system messages and the last
   * `keepLast` messages; `abort` fails the run (`middleware` error carrying the cause);
   * `passThrough` sends the request uncompressed.
   */
  onFailure?: CompressionFailurePolicy;
  /** Default `"context_compression"`. */
  name?: string;
  counter?: TokenCounter;
  /** Records kept in `log` (default 1,024). */
  maxRecords?: number;
  /** Prefix of the summary message (default "Summary of the earlier conversation:"). */
  summaryHeading?: string;
}

/** A context-compression middleware, with its compression log. */
export interface ContextCompressionMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly log: CompressionLog;
}

interface Folded {
  /** The original history messages the summary stands for (a prefix of the history, by identity). */
  prefix: Message[];
  /** What replaces them: the summary message, then any system messages that were among them. */
  replacement: Message[];
  summary: string;
}

/**
 * Summarize older turns when a request goes over budget (`SummarizationPolicy`): the system
 * messages and the last `keepLast` messages stay verbatim (tool pairs are never split), the
 * older history becomes one system message holding the summary, at the start of the history.
 * `sourceIds` are `messageId`s of the ORIGINAL request's messages (positions as the loop sent
 * them), so the union over a run's records is every message ever summarized.
 *
 * Cache-aware: the compression is remembered per run, so later requests carry the SAME summary
 * message in place of the same messages — the cacheable prefix changes once per compression, not
 * on every turn. When the compressed conversation grows over budget again, the previous summary
 * and the next older messages are summarized together.
 *
 * Only requests are compressed; the run's transcript keeps everything. Declares
 * `changes: "prefix"`. Each compression is recorded (`kind: "summary"`, `sourceIds` = exactly
 * the original messages it folded) and emitted as
 * `context.compressed`; a fallback trim is recorded as `kind: "trim"`.
 * Cost when under budget: token estimates are memoized per message, the earlier compression is
 * matched by identity — O(1) amortized hashing work per turn.
 * Throws `validation` at construction for a bad policy or failure policy.
 */
export function contextCompressionMiddleware<State = unknown, Ctx = unknown>(
  policyInput: SummarizationPolicy | Parameters<typeof summarizationPolicy>[0],
  options: ContextCompressionOptions = {},
): ContextCompressionMiddleware<State, Ctx> {
  const policy = summarizationPolicy(policyInput);
  const name = options.name ?? "context_compression";
  const onFailure = options.onFailure ?? "fallbackTrim";
  if (onFailure !== "abort" && onFailure !== "fallbackTrim" && onFailure !== "passThrough") {
    throw validationError(
      `contextCompressionMiddleware: onFailure must be "abort", "fallbackTrim" or "passThrough", got ${String(onFailure)}`,
      { field: "onFailure" },
    );
  }
  const summarizer = options.summarizer ?? new ConcatSummarizer();
  if (typeof summarizer?.summarize !== "function") {
    throw validationError("contextCompressionMiddleware: summarizer must implement summarize(messages)", {
      field: "summarizer",
    });
  }
  const counter = options.counter ?? defaultTokenCounter;
  const heading = options.summaryHeading ?? "Summary of the earlier conversation:";
  const log = new CompressionLog(options.maxRecords);
  const runs = new RunState<{ folded: Folded | undefined }>(() => ({ folded: undefined }));
  const budget = triggerBudget(policy);

  const compress = async (
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
  ): Promise<ModelRequest | undefined> => {
    const state = runs.of(ctx);
    const range = historyRange(request);
    const history = request.messages.slice(range.start, range.end);
    // Reuse the run's earlier compression: same summary message in place of the same messages.
    const folded =
      state.folded !== undefined && startsWith(history, state.folded.prefix) ? state.folded : undefined;
    const rest = folded === undefined ? history : history.slice(folded.prefix.length);
    const working = folded === undefined ? history : [...folded.replacement, ...rest];
    const outside =
      messagesTokens(request.messages, counter, 0, range.start) +
      messagesTokens(request.messages, counter, range.end) +
      (request.tools === undefined ? 0 : counter.countTools(request.tools));
    const unchanged = folded === undefined ? undefined : replaceHistory(request, working);
    if (outside + messagesTokens(working, counter) <= budget) return unchanged;

    const cut = foldBoundary(rest, policy.keepLast);
    if (cut === 0) return unchanged;
    const toFold = rest.slice(0, cut);
    const chat = toFold.filter((m) => m.role !== "system");
    const keptSystems = toFold.filter((m) => m.role === "system");
    if (chat.length === 0) return unchanged;
    // Ids are of the ORIGINAL request's messages (the summary a re-compression replaces is not one).
    const restStart = range.start + (folded === undefined ? 0 : folded.prefix.length);
    const removedIds = toFold.flatMap((m, i) => (m.role === "system" ? [] : [messageId(m, restStart + i)]));
    const tokensBefore = messagesTokens(working, counter);
    let summary: string;
    try {
      summary = await summarizer.summarize(chat, {
        signal: ctx.run.signal,
        ...(folded === undefined ? {} : { previousSummary: folded.summary }),
      });
    } catch (thrown) {
      if (ctx.run.aborted) throw thrown;
      return onError(ctx, request, working, folded, tokensBefore, toTinyAgentsError(thrown));
    }
    const summaryMessage = system(`${heading}\n${summary}`);
    const replacement = [
      summaryMessage,
      ...(folded === undefined ? [] : folded.replacement.slice(1)),
      ...keptSystems,
    ];
    const next: Folded = {
      prefix: [...(folded?.prefix ?? []), ...toFold],
      replacement,
      summary,
    };
    state.folded = next;
    const compressed = [...replacement, ...rest.slice(cut)];
    recordCompression(ctx, log, summary, {
      by: name,
      kind: "summary",
      reason: `estimated ${outside + tokensBefore} tokens exceed the budget of ${budget}; summarized ${chat.length} older message(s) with "${summarizer.name}", kept the last ${policy.keepLast}`,
      sourceIds: removedIds,
      tokensBefore,
      tokensAfter: messagesTokens(compressed, counter),
      segments: historySegmentIds(request),
    });
    return replaceHistory(request, compressed);
  };

  const onError = (
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
    working: Message[],
    folded: Folded | undefined,
    tokensBefore: number,
    error: TinyAgentsError,
  ): ModelRequest | undefined => {
    if (onFailure === "abort") {
      throw new TinyAgentsError(
        "middleware",
        `${name}: the summarizer "${summarizer.name}" failed: ${error.message}; fix the summarizer or use onFailure "fallbackTrim" / "passThrough"`,
        { cause: error, details: { middleware: name, summarizer: summarizer.name } },
      );
    }
    if (onFailure === "passThrough") return undefined;
    const kept = trimMessages(working, { kind: "keepLast", count: policy.keepLast }, { counter });
    const keptSet = new Set(kept);
    const range = historyRange(request);
    const synthetic = folded === undefined ? 0 : folded.replacement.length;
    const restStart = range.start + (folded === undefined ? 0 : folded.prefix.length);
    // Ids of the original request's messages the trim dropped (an earlier summary is not one).
    const removed = working.flatMap((m, i) =>
      keptSet.has(m) || i < synthetic ? [] : [messageId(m, restStart + i - synthetic)],
    );
    if (removed.length === 0)
      return kept.length === working.length
        ? replaceHistory(request, working)
        : replaceHistory(request, kept);
    recordCompression(ctx, log, "", {
      by: name,
      kind: "trim",
      reason: `the summarizer "${summarizer.name}" failed (${error.message}); fell back to keeping the last ${policy.keepLast} message(s)`,
      sourceIds: removed,
      tokensBefore,
      tokensAfter: messagesTokens(kept, counter),
      segments: historySegmentIds(request),
    });
    return replaceHistory(request, kept);
  };

  return { name, changes: "prefix", log, beforeModel: compress };
}

/** Whether `messages` starts with exactly the objects of `prefix`. */
function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}

/**
 * How many leading messages of `messages` to fold: everything before the window holding at
 * least the last `keepLast` non-system messages, moved earlier so no tool pair is split.
 */
function foldBoundary(messages: readonly Message[], keepLast: number): number {
  const units = messageUnits(messages);
  let kept = 0;
  let index = units.length;
  while (index > 0 && kept < keepLast) {
    const unit = units[index - 1] as MessageUnit;
    if (!unit.system) kept += unit.end - unit.start;
    index--;
  }
  return index === 0 ? 0 : (units[index - 1] as MessageUnit).end;
}
