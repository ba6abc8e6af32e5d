import { isJsonObject, type JsonObject, type JsonValue } from "@tinyagents/inference";

/** How many `{` positions {@link extractJsonObject} tries before giving up (bounds the work). */
const MAX_ATTEMPTS = 16;

/**
 * Recover a JSON object from model text that is not itself valid JSON arguments. Tries, in
 * order: the whole text; the body of the first markdown code fence (```json ... ```); a JSON
 * string whose content is a JSON object (double encoding); the first balanced `{...}` that
 * parses (junk before or after it is ignored). Returns the object and a short description of
 * what was done, or `undefined`. Never throws.
 */
export function extractJsonObject(text: string): { value: JsonObject; how: string } | undefined {
  const whole = parse(text.trim());
  if (isJsonObject(whole)) return { value: whole, how: "parsed the raw argument text" };
  if (typeof whole === "string") {
    const inner = parse(whole.trim());
    if (isJsonObject(inner)) return { value: inner, how: "decoded JSON that was wrapped in a JSON string" };
  }
  const fence = /```[A-Za-z0-9_-]*[^\S\n]*\n?([\s\S]*?)```/.exec(text);
  if (fence?.[1] !== undefined) {
    const body = fence[1].trim();
    const fenced = parse(body);
    if (isJsonObject(fenced)) return { value: fenced, how: "parsed JSON from a markdown code fence" };
    const embedded = firstObject(body);
    if (embedded !== undefined) return { value: embedded, how: "parsed JSON from a markdown code fence" };
  }
  const embedded = firstObject(text);
  if (embedded !== undefined)
    return { value: embedded, how: "extracted the JSON object from surrounding text" };
  return undefined;
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
