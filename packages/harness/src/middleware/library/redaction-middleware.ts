import type { ModelRequest } from "@tinyagents/inference";
import type { HookContext, Middleware } from "../middleware.js";
import { replacesRequestOnly } from "../read-only-hooks.js";
import { middlewareName, optionError, positive } from "./option-checks.js";
import { PerRun } from "./per-run.js";
import { DEFAULT_REDACTION_PATTERNS, type RedactionPattern } from "./redaction-patterns.js";
import { RunRedactionMemo } from "./run-redaction-memo.js";
import { StreamRedactor } from "./stream-redactor.js";
import { TextRedactor } from "./text-redactor.js";

/** Default of {@link RedactionMiddlewareOptions.deltaHoldback}. */
export const DEFAULT_DELTA_HOLDBACK = 128;

/** Options of {@link redactionMiddleware}. */
export interface RedactionMiddlewareOptions {
  /** The patterns (default `DEFAULT_REDACTION_PATTERNS`); replaces the defaults. */
  patterns?: readonly RedactionPattern[];
  /** Patterns added to `patterns` (or to the defaults). */
  extraPatterns?: readonly RedactionPattern[];
  /** The replacement text (default `[REDACTED:<pattern name>]`). */
  mask?: string | ((patternName: string) => string);
  /** Redact what is sent to the model (default true). */
  requests?: boolean;
  /** Redact streamed text deltas (default true). */
  deltas?: boolean;
  /**
   * Characters of streamed text held back until later deltas (or the end of the stream) show
   * they are not part of a secret (default 128). A secret split across deltas is masked in the
   * stream when this many characters are enough to recognise it, or while its pattern's
   * `partial` matches (the default JWT and PEM patterns have one: they are held as they arrive,
   * however long). An e-mail address with a longer local part, or a longer custom pattern
   * without `partial`, can reach consumers split; the stored answer still masks it. Larger
   * values catch longer patterns; consumers see text this much later.
   */
  deltaHoldback?: number;
  /** Redact the model's answer text (default true). */
  responses?: boolean;
  /** Redact tool results before the model sees them (default true). */
  results?: boolean;
  /** Middleware name (default `"redaction"`). */
  name?: string;
}

/** The redaction middleware; `redactions` counts the matches masked so far. */
export interface RedactionMiddleware<State, Ctx> extends Middleware<State, Ctx> {
  readonly redactions: number;
}

/**
 * Masks PII and secrets wherever text flows:
 * - requests (`beforeModel`): every message sent to the model — a redacted COPY, the run's
 *   transcript keeps the originals; copies are remembered per run, so a model call only scans
 *   the messages its run has not sent before (a new run of a thread scans the thread's history
 *   once). Declares `changes: "prefix"` (history is rewritten, identically on every call);
 * - streamed deltas (`onModelDelta`): text deltas, before consumers see them. The last
 *   `deltaHoldback` characters (and a match still growing at the end) are held back until later
 *   deltas show they are not (part of) a secret, so a secret split across deltas never reaches
 *   consumers; a delta whose text is all held is dropped for now. When the stream ends
 *   (`onModelStreamEnd`) the held tail is released, redacted: consumers get it as a `model.text_delta`
 *   and it ends the stored answer (and any response-cache copy), so the stored answer is exactly
 *   what consumers saw. A stream that fails releases its held tail to consumers too;
 * - answers (`afterModel`): the response's text (tool-call arguments are left as the model wrote
 *   them — the tool must run with the real values; they are redacted in later requests);
 * - tool results (`afterTool`).
 * Reasoning blocks are never changed (providers sign them). Idempotent.
 * Throws `validation` at construction for malformed patterns (not a RegExp, matching "").
 */
export function redactionMiddleware<State = unknown, Ctx = unknown>(
  options: RedactionMiddlewareOptions = {},
): RedactionMiddleware<State, Ctx> {
  const name = middlewareName("redaction", options.name);
  if (options.patterns !== undefined && !Array.isArray(options.patterns)) {
    throw optionError(name, "patterns", "must be an array of { name, pattern }");
  }
  if (options.extraPatterns !== undefined && !Array.isArray(options.extraPatterns)) {
    throw optionError(name, "extraPatterns", "must be an array of { name, pattern }");
  }
  const patterns = [...(options.patterns ?? DEFAULT_REDACTION_PATTERNS), ...(options.extraPatterns ?? [])];
  if (patterns.length === 0) throw optionError(name, "patterns", "must hold at least one pattern");
  const mask = options.mask;
  if (mask !== undefined && typeof mask !== "string" && typeof mask !== "function") {
    throw optionError(name, "mask", "must be a string or a function (patternName) => string");
  }
  const masker = typeof mask === "function" ? mask : (pattern: string) => mask ?? `[REDACTED:${pattern}]`;
  const redactor = new TextRedactor(name, patterns, masker);
  const memos = new PerRun(() => new RunRedactionMemo(redactor));

  const middleware: RedactionMiddleware<State, Ctx> = {
    name,
    changes: "prefix",
    get redactions() {
      return redactor.count;
    },
  };
  if (options.requests !== false) {
    // It never edits the request in place (a changed request is a copy): the stack snapshots the
    // prompt prefix only when it returns one.
    middleware.beforeModel = replacesRequestOnly(
      (ctx: HookContext<State, Ctx>, request: ModelRequest): ModelRequest | undefined => {
        const messages = memos.of(ctx.run).messages(request.messages);
        return messages === undefined ? undefined : { ...request, messages };
      },
    );
  }
  if (options.deltas !== false) {
    const holdback =
      options.deltaHoldback === undefined
        ? DEFAULT_DELTA_HOLDBACK
        : positive(name, "deltaHoldback", options.deltaHoldback, true);
    // One stream at a time per run: a run's model calls are sequential.
    const streams = new PerRun(() => new StreamRedactor(redactor, holdback));
    middleware.onModelDelta = (ctx, delta) => {
      if (delta.type !== "text_delta") return undefined;
      const out = streams.of(ctx.run).push(delta.text);
      if (out === delta.text) return undefined;
      // All of it held for now: nothing reaches consumers yet.
      return out === "" ? null : { ...delta, text: out };
    };
    // The stream ended (or failed): release the held tail, redacted. The loop sends it to
    // consumers and, on completion, appends it to the stored answer (and so to any cached copy).
    middleware.onModelStreamEnd = (ctx) => {
      const tail = streams.of(ctx.run).end();
      return tail === "" ? undefined : [{ type: "text_delta", text: tail }];
    };
  }
  if (options.responses !== false) {
    middleware.afterModel = (ctx, response) => {
      const content = memos.of(ctx.run).blocks(response.message.content);
      if (content === response.message.content) return undefined;
      return { ...response, message: { ...response.message, content } };
    };
  }
  if (options.results !== false) {
    middleware.afterTool = (ctx, result) => {
      const content = memos.of(ctx.run).blocks(result.content);
      return content === result.content ? undefined : { ...result, content };
    };
  }
  return middleware;
}
