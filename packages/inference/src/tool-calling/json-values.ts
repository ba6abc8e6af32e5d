import type { JsonValue } from "../json/json-value.js";
import { repairArguments } from "../providers/openai/repair-arguments.js";

/** Where a resumable {@link scanJsonEnd} stopped. */
export interface JsonScanState {
  /** Next index to look at. */
  at: number;
  depth: number;
  inString: boolean;
  /** The previous character was a backslash inside a string. */
  escaped: boolean;
}

/**
 * The index just past the JSON object or array that opens at `start` (`{` or `[`), tracking
 * strings and escapes; `-1` when it does not close within `text`. Brackets of either kind count
 * towards the depth, so a malformed mix still terminates.
 */
export function findJsonEnd(text: string, start: number): number {
  return scanJsonEnd(text, { at: start, depth: 0, inString: false, escaped: false });
}

/**
 * {@link findJsonEnd} that can resume: scans `text` from `state.at`, updates `state`, and returns
 * the end index, or `-1` when the text ran out first (call again with more text and the same
 * state). Scanning a growing text this way costs O(total length), not O(length²).
 */
export function scanJsonEnd(text: string, state: JsonScanState): number {
  let { depth, inString, escaped } = state;
  let i = state.at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 92 /* \ */) escaped = true;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      if (depth <= 0) return i + 1;
    }
  }
  state.at = i;
  state.depth = depth;
  state.inString = inString;
  state.escaped = escaped;
  return -1;
}

/**
 * Parse JSON text written by a model: strict `JSON.parse` first, then (for objects) the
 * relaxed-JSON repair ladder of the OpenAI adapter (single quotes, unquoted keys, trailing
 * commas, Python literals, missing closers). `undefined` when neither works.
 */
export function parseJsonLoose(text: string): JsonValue | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  try {
    return JSON.parse(trimmed) as JsonValue;
  } catch {
    if (!trimmed.includes("{")) return undefined;
    return repairArguments(trimmed)?.value;
  }
}

/**
 * Every JSON object or array in `text`, in order: the whole text when it parses, else each
 * balanced `{...}` / `[...]` found left to right (prose between them is skipped; an object that
 * does not close is repaired if it can be). Used on text an explicit tool-call marker wraps,
 * never on arbitrary prose.
 */
export function extractJsonValues(text: string): JsonValue[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  try {
    return [JSON.parse(trimmed) as JsonValue];
  } catch {
    // fall through to scanning
  }
  const values: JsonValue[] = [];
  let i = nextOpen(trimmed, 0);
  while (i !== -1) {
    const end = findJsonEnd(trimmed, i);
    if (end === -1) {
      const repaired = trimmed[i] === "{" ? repairArguments(trimmed.slice(i)) : undefined;
      if (repaired !== undefined) values.push(repaired.value);
      break;
    }
    const value = parseJsonLoose(trimmed.slice(i, end));
    if (value !== undefined) {
      values.push(value);
      i = nextOpen(trimmed, end);
    } else {
      i = nextOpen(trimmed, i + 1);
    }
  }
  return values;
}

function nextOpen(text: string, from: number): number {
  const brace = text.indexOf("{", from);
  const bracket = text.indexOf("[", from);
  if (brace === -1) return bracket;
  if (bracket === -1) return brace;
  return Math.min(brace, bracket);
}
