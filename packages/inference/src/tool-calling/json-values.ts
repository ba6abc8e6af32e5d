import type { JsonValue } from "../json/json-value.js";
import { repairArguments } from "../providers/openai/repair-arguments.js";

/**
 * The index just past the JSON object or array that opens at `start` (`{` or `[`), tracking
 * strings and escapes; `-1` when it does not close within `text`. Brackets of either kind count
 * towards the depth, so a malformed mix still terminates.
 */
export function findJsonEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
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
