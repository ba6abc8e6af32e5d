import { callsFromJson } from "./call-from-json.js";
import { findJsonEnd, type JsonScanState, parseJsonLoose, scanJsonEnd } from "./json-values.js";
import { fenceCalls, type ToolContext, tagCalls, toolContext } from "./markup-calls.js";
import { classifyBareJson, classifyFence, classifyTag, type Opener } from "./openers.js";
import type { ParsedToolCall, ParseToolCallsOptions } from "./parsed-tool-call.js";
import { invokeCalls, nameAttribute, namedBodyCall } from "./xml-calls.js";

/** A piece of scanned text: prose to show, or markup to hide (with the calls it held, maybe none). */
export type ScanSegment =
  | { type: "text"; text: string }
  | { type: "markup"; raw: string; calls: ParsedToolCall[] };

/** Fence languages that explicitly mark a tool call. */
const CALL_FENCES = new Set([
  "tool_call",
  "tool-call",
  "toolcall",
  "tool_calls",
  "tool-calls",
  "invoke",
  "function_call",
  "function_calls",
]);
/** Fence languages whose content may be a tool call written as plain JSON. */
const JSON_FENCES = new Set(["", "json", "jsonc", "json5"]);
const TAG_CLOSE = /<\/\s{0,8}(?:tool[_-]?calls?)\s{0,8}>/gi;
const INVOKE_CLOSE = /<\/\s{0,8}invoke\s{0,8}>/gi;
const FUNCTION_CALLS_CLOSE = /<\/\s{0,8}function_calls\s{0,8}>/gi;
const FENCE_TAG_CLOSE = /```|<\/\s{0,8}(?:tool[_-]?calls?|invoke)\s{0,8}>/gi;
/** Longer than any closing marker: a resumed search starts this far back, so none is missed. */
const CLOSE_OVERLAP = 64;

type Step =
  | { kind: "markup"; end: number; calls: ParsedToolCall[] }
  | { kind: "text"; end: number }
  | { kind: "plain_fence"; end: number }
  | { kind: "wait"; needles: readonly string[] };

/**
 * The incremental tool-call scanner behind `parseToolCallsFromText` and
 * `ToolCallMarkupScrubber`. Feed text in any pieces with {@link push}, then call {@link end};
 * segments come out in order. Markup is held back until it is complete (a closing tag, a
 * closing fence, a balanced JSON object) and only then judged, so the segments depend only on
 * the whole text, never on how it was split. Prose inside a code fence of another language
 * (```` ```python ````) is passed through unscanned.
 */
export class ToolCallTextScanner {
  private buffer = "";
  private inPlainFence = false;
  private waitNeedles: readonly string[] | undefined;
  /** The last characters of the buffer while markup is held (a needle may straddle a push). */
  private waitTail = "";
  /** For markup held at the start of the buffer: where the search for its end resumes. */
  private resumeAt: number | undefined;
  /** For a held bare JSON object: the resumable scan of its end. */
  private jsonScan: JsonScanState | undefined;
  private readonly bareJson: boolean;
  private readonly context: ToolContext;

  constructor(options: ParseToolCallsOptions = {}) {
    this.bareJson = options.bareJson ?? true;
    this.context = toolContext(options);
  }

  /** Scan the next piece of text; finished segments are appended to `out`. */
  push(chunk: string, out: ScanSegment[]): void {
    if (chunk === "") return;
    this.buffer += chunk;
    const needles = this.waitNeedles;
    if (needles !== undefined) {
      // Held markup cannot end before one of its needles arrives: skip the rescan until then.
      // (Checking only the recent tail keeps appends cheap: the buffer is never flattened here.)
      const recent = this.waitTail + chunk;
      this.waitTail = recent.slice(-8);
      if (!needles.some((needle) => recent.includes(needle))) return;
    }
    this.drain(false, out);
  }

  /** No more text: judge whatever is held back and append the last segments to `out`. */
  end(out: ScanSegment[]): void {
    this.drain(true, out);
    this.buffer = "";
    this.waitNeedles = undefined;
    this.resumeAt = undefined;
    this.jsonScan = undefined;
    this.inPlainFence = false;
  }

  private drain(final: boolean, out: ScanSegment[]): void {
    const text = this.buffer;
    let pos = 0;
    this.waitNeedles = undefined;
    while (pos < text.length) {
      if (this.inPlainFence) {
        const close = text.indexOf("```", pos);
        if (close === -1) {
          const keep = final ? 0 : trailingBackticks(text, pos);
          emitText(out, text.slice(pos, text.length - keep));
          pos = text.length - keep;
          break;
        }
        emitText(out, text.slice(pos, close + 3));
        pos = close + 3;
        this.inPlainFence = false;
        continue;
      }
      const found = this.findOpener(text, pos, final);
      if (found === undefined) {
        emitText(out, text.slice(pos));
        pos = text.length;
        break;
      }
      emitText(out, text.slice(pos, found.start));
      pos = found.start;
      if (found.opener === undefined) break;
      if (found.start !== 0) {
        this.resumeAt = undefined;
        this.jsonScan = undefined;
      }
      const step = this.resolve(found.opener, text, final);
      if (step.kind === "wait") {
        this.waitNeedles = step.needles;
        // The buffer is cut at the opener below, so this offset stays valid relative to it.
        this.resumeAt = Math.max(found.opener.bodyStart, text.length - CLOSE_OVERLAP) - pos;
        if (this.jsonScan !== undefined) this.jsonScan.at -= pos;
        break;
      }
      this.resumeAt = undefined;
      this.jsonScan = undefined;
      if (step.kind === "markup")
        out.push({ type: "markup", raw: text.slice(pos, step.end), calls: step.calls });
      else emitText(out, text.slice(pos, step.end));
      if (step.kind === "plain_fence") this.inPlainFence = true;
      pos = step.end;
    }
    this.buffer = text.slice(pos);
    this.waitTail = this.buffer.slice(-8);
  }

  private findOpener(
    text: string,
    from: number,
    final: boolean,
  ): { start: number; opener?: Opener } | undefined {
    const pattern = OPENER_CHARS;
    pattern.lastIndex = from;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const i = match.index;
      const c = text[i];
      const result =
        c === "<"
          ? classifyTag(text, i, final)
          : c === "`"
            ? classifyFence(text, i, final)
            : this.bareJson
              ? classifyBareJson(text, i, final)
              : "no";
      if (result === "partial") return { start: i };
      if (result !== "no") return { start: i, opener: result };
    }
    return undefined;
  }

  private resolve(opener: Opener, text: string, final: boolean): Step {
    switch (opener.kind) {
      case "close":
        return { kind: "markup", end: opener.bodyStart, calls: [] };
      case "tag":
        return this.resolveTag(opener, text, final);
      case "invoke": {
        const close = findFrom(INVOKE_CLOSE, text, this.searchFrom(opener));
        if (close === undefined) return final ? { kind: "text", end: opener.bodyStart } : WAIT_TAG;
        const name = nameAttribute(opener.attributes);
        const body = text.slice(opener.bodyStart, close.index);
        return verdict(
          name === undefined ? [] : [namedBodyCall(name, body, this.context.schemas, "xml")],
          close.end,
        );
      }
      case "function_calls": {
        const close = findFrom(FUNCTION_CALLS_CLOSE, text, this.searchFrom(opener));
        if (close !== undefined) {
          return verdict(
            invokeCalls(text.slice(opener.bodyStart, close.index), this.context.schemas).calls,
            close.end,
          );
        }
        if (!final) return WAIT_TAG;
        // Stop sequences often cut the closing tag: the complete <invoke> blocks still count.
        const { calls, end } = invokeCalls(text.slice(opener.bodyStart), this.context.schemas);
        return calls.length > 0
          ? { kind: "markup", end: opener.bodyStart + end, calls }
          : { kind: "text", end: opener.bodyStart };
      }
      case "fence":
        return this.resolveFence(opener, text, final);
      case "json": {
        if (opener.start !== 0 || this.jsonScan === undefined) {
          this.jsonScan = { at: opener.start, depth: 0, inString: false, escaped: false };
        }
        const end = scanJsonEnd(text, this.jsonScan);
        if (end === -1) return final ? { kind: "text", end: opener.start + 1 } : WAIT_JSON;
        const value = parseJsonLoose(text.slice(opener.start, end));
        const calls =
          value === undefined
            ? []
            : callsFromJson(value, { explicit: false, dialect: "json", known: this.context.known });
        return verdict(calls, end);
      }
    }
  }

  private resolveTag(opener: Opener, text: string, final: boolean): Step {
    const closePattern = opener.name === "invoke" ? INVOKE_CLOSE : TAG_CLOSE;
    const close = findFrom(closePattern, text, this.searchFrom(opener));
    if (close !== undefined) {
      return verdict(tagCalls(this.context, text.slice(opener.bodyStart, close.index), opener), close.end);
    }
    if (!final) return WAIT_TAG;
    // No closing tag will come: a JSON call right after the opener still counts.
    let j = opener.bodyStart;
    while (j < text.length && /\s/.test(text[j]!)) j++;
    if (text[j] === "{" || text[j] === "[") {
      const end = findJsonEnd(text, j);
      if (end !== -1) {
        const calls = tagCalls(this.context, text.slice(opener.bodyStart, end), opener);
        if (calls.length > 0) return { kind: "markup", end, calls };
      }
    }
    return { kind: "text", end: opener.bodyStart };
  }

  /** Where to look for the end of `opener`: where the last look stopped, for markup held back. */
  private searchFrom(opener: Opener): number {
    if (opener.start !== 0 || this.resumeAt === undefined) return opener.bodyStart;
    return Math.max(opener.bodyStart, this.resumeAt);
  }

  private resolveFence(opener: Opener, text: string, final: boolean): Step {
    const explicit = CALL_FENCES.has(opener.name);
    if (!explicit && !JSON_FENCES.has(opener.name)) return { kind: "plain_fence", end: opener.bodyStart };
    const close = explicit
      ? findFrom(FENCE_TAG_CLOSE, text, this.searchFrom(opener))
      : indexFrom(text, "```", this.searchFrom(opener));
    if (close !== undefined)
      return verdict(
        fenceCalls(this.context, text.slice(opener.bodyStart, close.index), explicit),
        close.end,
      );
    if (!final) return explicit ? WAIT_FENCE_OR_TAG : WAIT_FENCE;
    const calls = fenceCalls(this.context, text.slice(opener.bodyStart), explicit);
    return calls.length > 0
      ? { kind: "markup", end: text.length, calls }
      : { kind: "text", end: opener.bodyStart };
  }
}

/** Characters where markup can start. Shared: scanning is synchronous and sets `lastIndex` first. */
const OPENER_CHARS = /[<`{]/g;
const WAIT_TAG: Step = { kind: "wait", needles: ["</"] };
const WAIT_JSON: Step = { kind: "wait", needles: ["}", "]"] };
const WAIT_FENCE: Step = { kind: "wait", needles: ["```"] };
const WAIT_FENCE_OR_TAG: Step = { kind: "wait", needles: ["```", "</"] };

function verdict(calls: ParsedToolCall[], end: number): Step {
  return calls.length > 0 ? { kind: "markup", end, calls } : { kind: "text", end };
}

function findFrom(pattern: RegExp, text: string, from: number): { index: number; end: number } | undefined {
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  return match === null ? undefined : { index: match.index, end: match.index + match[0].length };
}

function indexFrom(text: string, needle: string, from: number): { index: number; end: number } | undefined {
  const index = text.indexOf(needle, from);
  return index === -1 ? undefined : { index, end: index + needle.length };
}

function trailingBackticks(text: string, from: number): number {
  let count = 0;
  while (count < 2 && text.length - count - 1 >= from && text[text.length - count - 1] === "`") count++;
  return count;
}

function emitText(out: ScanSegment[], text: string): void {
  if (text === "") return;
  const last = out[out.length - 1];
  if (last?.type === "text") last.text += text;
  else out.push({ type: "text", text });
}
