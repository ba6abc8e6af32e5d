import {
  type ContentBlock,
  defaultTokenCounter,
  type Message,
  type TokenCounter,
  validationError,
} from "@tinyagents/inference";
import { copyFingerprint, shallowCopy } from "../../cache/edit-history.js";
import { layoutSegments } from "../../cache/request-layout.js";
import { CompressionLog } from "../../events/compression-record.js";
import type { Middleware } from "../../middleware/middleware.js";
import { messageId } from "../message-ids.js";
import { recordCompression } from "./record-compression.js";

/** Shortens one retrieved text. */
export type TextCompressor = (text: string, message: Message) => string | Promise<string>;

/** Options of {@link retrievedContextCompressionMiddleware}. */
export interface RetrievedContextCompressionOptions {
  /** Text blocks longer than this are compressed (default 2,000 characters). */
  maxChars?: number;
  /** Which tail messages hold retrieved context (default: every system, user or tool message of the tail). */
  select?: (message: Message) => boolean;
  /** How to shorten a text (default: keep the head and the end, note what was omitted). */
  compress?: TextCompressor;
  /** Default `"retrieved_context_compression"`. */
  name?: string;
  counter?: TokenCounter;
  /** Records kept in `log` (default 1,024). */
  maxRecords?: number;
}

/** A retrieved-context compression middleware, with its compression log. */
export interface RetrievedContextCompressionMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly log: CompressionLog;
}

/**
 * Shrink retrieved documents in the VOLATILE TAIL of each request — the messages after the
 * cacheable prefix (the harness's `volatileContext`, notes a middleware appended) — so large
 * per-turn context does not crowd the window. Text blocks longer than `maxChars` are passed to
 * `compress` (default: head and end kept, the middle replaced by an omission note). The cacheable
 * prefix is never touched: declares `changes: "tail"`. Each compression is recorded
 * (`kind: "retrieved"`, `sourceIds` = the shortened messages, `segments` = the tail segments) and
 * emitted as `context.compressed`. Throws `validation` for bad options.
 */
export function retrievedContextCompressionMiddleware<State = unknown, Ctx = unknown>(
  options: RetrievedContextCompressionOptions = {},
): RetrievedContextCompressionMiddleware<State, Ctx> {
  const name = options.name ?? "retrieved_context_compression";
  const maxChars = options.maxChars ?? 2000;
  if (!Number.isInteger(maxChars) || maxChars < 16) {
    throw validationError(
      `retrievedContextCompressionMiddleware: maxChars must be an integer >= 16, got ${maxChars}`,
      {
        field: "maxChars",
      },
    );
  }
  const select = options.select ?? ((m: Message) => m.role !== "assistant");
  const compress = options.compress ?? ((value: string) => headAndTail(value, maxChars));
  const counter = options.counter ?? defaultTokenCounter;
  const log = new CompressionLog(options.maxRecords);
  return {
    name,
    changes: "tail",
    log,
    async beforeModel(ctx, request) {
      const tail = layoutSegments(request).filter((s) => !s.inPrefix && s.end > s.start);
      let messages: Message[] | undefined;
      const sourceIds: string[] = [];
      const segments = new Set<string>();
      let before = 0;
      let after = 0;
      for (const segment of tail) {
        for (let i = segment.start; i < segment.end; i++) {
          const message = request.messages[i] as Message;
          if (!select(message) || !message.content.some((b) => b.type === "text" && b.text.length > maxChars))
            continue;
          const content: ContentBlock[] = [];
          for (const block of message.content) {
            if (block.type !== "text" || block.text.length <= maxChars) content.push(block);
            else content.push({ type: "text", text: await compress(block.text, message) });
          }
          const shortened = { ...message, content } as Message;
          messages ??= request.messages.slice();
          messages[i] = shortened;
          sourceIds.push(messageId(message, i));
          segments.add(segment.id);
          before += counter.countMessage(message);
          after += counter.countMessage(shortened);
        }
      }
      if (messages === undefined) return undefined;
      recordCompression(ctx, log, "", {
        by: name,
        kind: "retrieved",
        reason: `shortened ${sourceIds.length} retrieved message(s) in the volatile tail to about ${maxChars} characters per text`,
        sourceIds,
        tokensBefore: before,
        tokensAfter: after,
        segments: [...segments],
      });
      // The cacheable prefix is untouched: the copy keeps the request's fingerprint (lazy or not).
      const copy = shallowCopy(request);
      copy.messages = messages;
      copyFingerprint(request, copy);
      return copy;
    },
  };
}

/** `value` cut to about `max` characters: its head and its end, with an omission note between. */
export function headAndTail(value: string, max: number): string {
  if (value.length <= max) return value;
  const note = (omitted: number) => `\n[… ${omitted} characters omitted …]\n`;
  const room = Math.max(0, max - note(value.length).length);
  const head = Math.ceil(room * 0.7);
  const end = room - head;
  return value.slice(0, head) + note(value.length - head - end) + value.slice(value.length - end);
}
