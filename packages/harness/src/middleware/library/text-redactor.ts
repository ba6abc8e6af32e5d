import type { ContentBlock, JsonObject, JsonValue, Message, ToolCall } from "@tinyagents/inference";
import { optionError } from "./option-checks.js";
import type { RedactionPattern } from "./redaction-patterns.js";

/**
 * Applies redaction patterns to text, JSON values, content blocks and messages. Returns the SAME
 * object when nothing matched (so callers can tell and skip copying). Reasoning blocks are never
 * touched: providers sign their exact text. Idempotent: masks never match a pattern again.
 */
export class TextRedactor {
  /** How many matches were masked so far. */
  count = 0;
  private readonly patterns: readonly RedactionPattern[];
  private readonly mask: (name: string) => string;
  /** Matches where any pattern matches (one scan instead of one per pattern); see {@link anyOf}. */
  private readonly precheck: RegExp | undefined;

  constructor(middleware: string, patterns: readonly RedactionPattern[], mask: (name: string) => string) {
    this.patterns = patterns.map((p, i) => checkPattern(middleware, p, i));
    this.mask = mask;
    this.precheck = anyOf(this.patterns);
  }

  text(input: string): string {
    if (this.precheck !== undefined && !this.precheck.test(input)) return input;
    let out = input;
    for (const { name, pattern, validate } of this.patterns) {
      out = out.replace(pattern, (match) => {
        if (validate !== undefined && !validate(match)) return match;
        this.count++;
        return this.mask(name);
      });
    }
    return out;
  }

  /** How many patterns there are (one streaming context each). */
  get patternCount(): number {
    return this.patterns.length;
  }

  /**
   * For streamed text (see `StreamRedactor`): where `text` may be cut so that no match of any
   * pattern spans the cut. `cut` is moved back to the start of every match (validated or not)
   * that starts before it and ends after it or reaches the end of `text` (more text could extend
   * it), and of every match of a pattern's `partial` that reaches the end of `text` (a secret
   * still arriving). `contexts[k]` is what pattern k saw just before `text` (lookbehind only).
   * Returns the cut, in [0, cut], and `clean`: no match of any pattern starts before `cut`, so
   * the text before the cut needs no masking.
   */
  safeCut(contexts: readonly string[], text: string, cut: number): { cut: number; clean: boolean } {
    const spans: number[] = [];
    for (let k = 0; k < this.patterns.length; k++) {
      collectSpans(
        (this.patterns[k] as RedactionPattern).pattern,
        contexts[k] ?? "",
        text,
        cut,
        spans,
        false,
      );
    }
    const clean = spans.length === 0;
    for (let k = 0; k < this.patterns.length; k++) {
      const partial = (this.patterns[k] as RedactionPattern).partial;
      if (partial !== undefined) collectSpans(partial, contexts[k] ?? "", text, cut, spans, true);
    }
    let safe = cut;
    for (let moved = true; moved; ) {
      moved = false;
      for (let i = 0; i < spans.length; i += 2) {
        const start = spans[i] as number;
        const end = spans[i + 1] as number;
        if (start < safe && (end > safe || end === text.length)) {
          safe = start;
          moved = true;
        }
      }
    }
    return { cut: safe, clean };
  }

  /**
   * For streamed text: `text[0, to)` redacted exactly as {@link text} redacts it inside the whole
   * stream — pattern by pattern, `contexts[k]` (what pattern k saw before) as lookbehind and the
   * rest of `text` as lookahead. A match that starts before `to` but runs past it is masked
   * whole; `end` says where the redacted part ended in `text` (`to`, or later when such a match
   * was absorbed). Also returns each pattern's context for the text that follows.
   */
  textRange(
    contexts: readonly string[],
    text: string,
    to: number,
  ): { text: string; end: number; contexts: string[] } {
    let region = text.slice(0, to);
    let rest = text.slice(to);
    let end = to;
    const seen: string[] = [];
    const endAfter: number[] = [];
    for (let k = 0; k < this.patterns.length; k++) {
      const { name, pattern, validate } = this.patterns[k] as RedactionPattern;
      const context = contexts[k] ?? "";
      seen.push(region);
      const current = context + region + rest;
      const from = context.length;
      let rangeEnd = from + region.length;
      let out: string | undefined;
      let last = from;
      pattern.lastIndex = from;
      for (let m = pattern.exec(current); m !== null; m = pattern.exec(current)) {
        if (m.index >= rangeEnd) break;
        const match = m[0];
        if (match.length === 0) {
          pattern.lastIndex++;
          continue;
        }
        if (validate !== undefined && !validate(match)) continue;
        const matchEnd = m.index + match.length;
        if (matchEnd > rangeEnd) {
          // What follows the range is still raw text: absorb what the match took of it.
          end += matchEnd - rangeEnd;
          rangeEnd = matchEnd;
        }
        this.count++;
        out = `${out ?? ""}${current.slice(last, m.index)}${this.mask(name)}`;
        last = matchEnd;
      }
      pattern.lastIndex = 0;
      if (out !== undefined) {
        seen[k] = current.slice(from, rangeEnd);
        region = out + current.slice(last, rangeEnd);
        rest = current.slice(rangeEnd);
      }
      endAfter.push(end);
    }
    // Pattern k's next context: what it saw, plus raw text later patterns absorbed.
    const next = seen.map((r, k) =>
      streamContext(`${contexts[k] ?? ""}${r}${text.slice(endAfter[k] as number, end)}`),
    );
    return { text: region, end, contexts: next };
  }

  // Copy-on-write walks: nothing is allocated for a value without a match (every tool call's
  // arguments are walked when its message is first sent).
  json(value: JsonValue): JsonValue {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) {
      let copy: JsonValue[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item = value[i] as JsonValue;
        const next = this.json(item);
        if (next !== item) {
          copy ??= value.slice();
          copy[i] = next;
        }
      }
      return copy ?? value;
    }
    if (value !== null && typeof value === "object") return this.object(value);
    return value;
  }

  object(value: JsonObject): JsonObject {
    let copy: JsonObject | undefined;
    // for-in, not Object.entries: no pair arrays (JSON data has no inherited enumerable keys).
    for (const key in value) {
      const item = value[key] as JsonValue;
      const next = this.json(item);
      if (next !== item) {
        copy ??= { ...value };
        copy[key] = next;
      }
    }
    return copy ?? value;
  }

  /**
   * The blocks with their text and JSON redacted (the same array when nothing matched). `clean`:
   * text blocks found clean, with the text they had then — a block found there with the same
   * text is not scanned again (a tool result or answer scanned by `afterTool` / `afterModel`,
   * when its message is next sent to the model), and blocks found clean are added to it.
   */
  blocks(content: ContentBlock[], clean?: Map<ContentBlock, string>): ContentBlock[] {
    let copy: ContentBlock[] | undefined;
    for (let i = 0; i < content.length; i++) {
      const block = content[i] as ContentBlock;
      let next: ContentBlock = block;
      if (block.type === "text") {
        if (clean !== undefined && clean.get(block) === block.text) continue;
        const redacted = this.text(block.text);
        if (redacted !== block.text) next = { ...block, text: redacted };
        else clean?.set(block, block.text);
      } else if (block.type === "json") {
        const redacted = this.json(block.value);
        if (redacted !== block.value) next = { ...block, value: redacted };
      }
      if (next !== block) {
        copy ??= content.slice();
        copy[i] = next;
      }
    }
    return copy ?? content;
  }

  /** A message with its text, JSON and (for requests) tool-call arguments redacted; `clean` as for {@link blocks}. */
  message(message: Message, clean?: Map<ContentBlock, string>): Message {
    const content = this.blocks(message.content, clean);
    if (message.role === "assistant") {
      let calls = message.toolCalls;
      for (let i = 0; i < message.toolCalls.length; i++) {
        const call = message.toolCalls[i] as ToolCall;
        const args = this.object(call.arguments);
        if (args === call.arguments) continue;
        if (calls === message.toolCalls) calls = message.toolCalls.slice();
        calls[i] = { ...call, arguments: args };
      }
      return content === message.content && calls === message.toolCalls
        ? message
        : { ...message, content, toolCalls: calls };
    }
    return content === message.content ? message : ({ ...message, content } as Message);
  }
}

/** Characters of lookbehind a pattern keeps from streamed text it already passed over. */
const STREAM_CONTEXT_CHARS = 32;

/** The lookbehind kept from `seen`: its last {@link STREAM_CONTEXT_CHARS} characters. */
export function streamContext(seen: string): string {
  return seen.length <= STREAM_CONTEXT_CHARS ? seen : seen.slice(-STREAM_CONTEXT_CHARS);
}

/**
 * Push `[start, end)` (positions in `text`) of every non-empty match of `pattern` in
 * `context + text` that starts in `text` before `cut` — only those reaching the end when `atEnd`.
 */
function collectSpans(
  pattern: RegExp,
  context: string,
  text: string,
  cut: number,
  spans: number[],
  atEnd: boolean,
): void {
  const buffer = context.length === 0 ? text : context + text;
  const from = context.length;
  pattern.lastIndex = from;
  for (let m = pattern.exec(buffer); m !== null; m = pattern.exec(buffer)) {
    if (m.index >= from + cut) break;
    const end = m.index + m[0].length;
    if (end === m.index) pattern.lastIndex++;
    else if (!atEnd || end === buffer.length) spans.push(m.index - from, end - from);
  }
  pattern.lastIndex = 0;
}

/**
 * One regexp that matches (`test`) exactly where at least one of `patterns` does: their sources
 * as alternatives, when they share their flags (besides `g`). `undefined` when that cannot be
 * exact — sticky patterns, backreferences or named groups (numbering and names would clash) —
 * or the combination does not compile: every pattern then runs on every text.
 */
function anyOf(patterns: readonly RedactionPattern[]): RegExp | undefined {
  const flags = patterns[0]?.pattern.flags.replace("g", "");
  if (flags === undefined || flags.includes("y")) return undefined;
  for (const { pattern } of patterns) {
    if (pattern.flags.replace("g", "") !== flags) return undefined;
    if (/\\[1-9]|\\k<|\(\?<(?![=!])/.test(pattern.source)) return undefined;
  }
  try {
    return new RegExp(patterns.map((p) => `(?:${p.pattern.source})`).join("|"), flags);
  } catch {
    return undefined;
  }
}

function checkPattern(middleware: string, p: RedactionPattern, i: number): RedactionPattern {
  const option = `patterns[${i}]`;
  if (typeof p !== "object" || p === null || typeof p.name !== "string" || p.name === "") {
    throw optionError(middleware, option, "must be { name: string, pattern: RegExp }");
  }
  if (!(p.pattern instanceof RegExp)) throw optionError(middleware, `${option}.pattern`, "must be a RegExp");
  const pattern = p.pattern.global ? p.pattern : new RegExp(p.pattern.source, `${p.pattern.flags}g`);
  if (new RegExp(pattern.source, pattern.flags.replace("g", "")).test("")) {
    throw optionError(
      middleware,
      `${option}.pattern`,
      `matches the empty string (${pattern}); it would mask everything`,
    );
  }
  if (p.validate !== undefined && typeof p.validate !== "function") {
    throw optionError(middleware, `${option}.validate`, "must be a function (match) => boolean");
  }
  if (p.partial === undefined) return { ...p, pattern };
  if (!(p.partial instanceof RegExp)) throw optionError(middleware, `${option}.partial`, "must be a RegExp");
  const partial = p.partial.global ? p.partial : new RegExp(p.partial.source, `${p.partial.flags}g`);
  return { ...p, pattern, partial };
}
