import { isJsonObject, type JsonObject, type JsonValue } from "@tinyagents/inference";

/** How many `{` positions {@link extractJsonObject} tries before giving up (bounds the work). */
const MAX_ATTEMPTS = 16;

/** How many decode steps {@link extractJsonObject} chains at most (each unwraps one layer). */
const MAX_LAYERS = 6;

// The first fence's body up to the NEXT fence mark, and up to the LAST one (a fence whose body
// holds another fence, e.g. through a JSON string, closes at the last mark).
const FENCE = /```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*?)```/;
const OUTER_FENCE = /```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*)```/;

/**
 * Recover a JSON object from model text that is not itself valid JSON arguments. The decode
 * steps COMPOSE: each one unwraps one layer and hands what is inside back to all of them, so any
 * nesting of the layers is recovered, e.g. a JSON string holding a markdown fence holding prose
 * around the object. The steps, tried in this order on each layer:
 * - the whole text parses as a JSON object (done);
 * - the whole text is a JSON string (double encoding): decode its content;
 * - a markdown code fence (```json ... ```): decode its body;
 * - the first balanced `{...}` that parses as an object (junk before or after it is ignored).
 * Returns the object and what was done (`"parsed the raw argument text"`, or the steps in order,
 * joined with ", then "), or `undefined`. At most `MAX_LAYERS` layers. Never throws.
 */
export function extractJsonObject(text: string): { value: JsonObject; how: string } | undefined {
  const found = decode(text, 0);
  if (found === undefined) return undefined;
  return {
    value: found.value,
    how: found.steps.length === 0 ? "parsed the raw argument text" : found.steps.join(", then "),
  };
}

function decode(text: string, depth: number): { value: JsonObject; steps: string[] } | undefined {
  if (depth > MAX_LAYERS) return undefined;
  const whole = parse(text.trim());
  if (isJsonObject(whole)) return { value: whole, steps: [] };
  if (typeof whole === "string") {
    const inner = decode(whole, depth + 1);
    if (inner !== undefined) return within("decoded JSON that was wrapped in a JSON string", inner);
  }
  const fence = FENCE.exec(text)?.[1];
  if (fence !== undefined) {
    const inner = decode(fence, depth + 1);
    if (inner !== undefined) return within("parsed JSON from a markdown code fence", inner);
    const outer = OUTER_FENCE.exec(text)?.[1];
    const nested = outer === undefined || outer === fence ? undefined : decode(outer, depth + 1);
    if (nested !== undefined) return within("parsed JSON from a markdown code fence", nested);
  }
  const embedded = firstObject(text);
  if (embedded !== undefined)
    return { value: embedded, steps: ["extracted the JSON object from surrounding text"] };
  return undefined;
}

function within(
  step: string,
  inner: { value: JsonObject; steps: string[] },
): { value: JsonObject; steps: string[] } {
  inner.steps.unshift(step);
  return inner;
}

/** The first balanced `{...}` substring of `text` that parses as a JSON object. */
function firstObject(text: string): JsonObject | undefined {
  let start = text.indexOf("{");
  for (let attempt = 0; start >= 0 && attempt < MAX_ATTEMPTS; attempt++) {
    const end = matchingBrace(text, start);
    if (end < 0) return undefined;
    const value = parse(text.slice(start, end + 1));
    if (isJsonObject(value)) return value;
    start = text.indexOf("{", start + 1);
  }
  return undefined;
}

/** Index of the `}` closing the `{` at `start` (strings and escapes respected), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i;
  }
  return -1;
}

function parse(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}
