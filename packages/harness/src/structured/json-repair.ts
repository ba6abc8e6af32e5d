import type { JsonValue } from "@tinyagents/inference";

/** Which rung of the repair ladder produced the value. */
export type JsonRepair = "strict" | "code_fence" | "slice" | "relaxed" | "closed";

/** A value recovered from near-JSON text, and how. */
export interface LenientJson {
  value: JsonValue;
  repair: JsonRepair;
}

/**
 * Parse model output that should be JSON but may not quite be. Tries, in order, and stops at the
 * first that parses:
 * 1. `strict`: the trimmed text;
 * 2. `code_fence`: the body of the first markdown code fence (```json ... ```; an unterminated
 *    fence counts, the output may have been cut);
 * 3. `slice`: from the first `{` / `[` to the last `}` / `]` (prose around the JSON dropped);
 * 4. `relaxed`: JavaScript-ish JSON normalized — single-quoted strings, unquoted keys, trailing
 *    commas, Python `True`/`False`/`None`;
 * 5. `closed`: a truncated value completed — an open string closed, a dangling `,` or `"key":`
 *    dropped, missing `]` / `}` appended.
 * Returns `undefined` when nothing works. Never throws; linear in the text length.
 */
export function parseLenientJson(text: string): LenientJson | undefined {
  const trimmed = text.trim();
  const strict = parse(trimmed);
  if (strict !== undefined) return { value: strict, repair: "strict" };
  const fence = fenceBody(trimmed);
  if (fence !== undefined) {
    const fenced = parse(fence);
    if (fenced !== undefined) return { value: fenced, repair: "code_fence" };
  }
  const base = fence ?? trimmed;
  const start = firstOpener(base);
  if (start < 0) return undefined;
  const closer = Math.max(base.lastIndexOf("}"), base.lastIndexOf("]"));
  const slice = closer > start ? base.slice(start, closer + 1) : undefined;
  if (slice !== undefined) {
    const sliced = parse(slice);
    if (sliced !== undefined) return { value: sliced, repair: "slice" };
    const relaxed = parse(relax(slice));
    if (relaxed !== undefined) return { value: relaxed, repair: "relaxed" };
  }
  const closed = parse(close(relax(base.slice(start))));
  if (closed !== undefined) return { value: closed, repair: "closed" };
  return undefined;
}

function parse(text: string): JsonValue | undefined {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

function fenceBody(text: string): string | undefined {
  const open = /```[A-Za-z0-9_-]*[^\S\n]*\n?/.exec(text);
  if (open === null) return undefined;
  const bodyStart = open.index + open[0].length;
  const end = text.indexOf("```", bodyStart);
  return (end < 0 ? text.slice(bodyStart) : text.slice(bodyStart, end)).trim();
}

function firstOpener(text: string): number {
  const brace = text.indexOf("{");
  const bracket = text.indexOf("[");
  if (brace < 0) return bracket;
  if (bracket < 0) return brace;
  return Math.min(brace, bracket);
}

const WORDS: Record<string, string> = { True: "true", False: "false", None: "null" };

/** Normalize JavaScript/Python-ish JSON: quotes, unquoted keys, trailing commas, literals. */
function relax(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"' || c === "'") {
      const [literal, next] = readString(text, i);
      out += literal;
      i = next;
      continue;
    }
    if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j] as string)) j++;
      if (text[j] === "}" || text[j] === "]") {
        i++;
        continue;
      }
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < text.length && /[A-Za-z0-9_$]/.test(text[j] as string)) j++;
      const word = text.slice(i, j);
      let k = j;
      while (k < text.length && /\s/.test(text[k] as string)) k++;
      const before = lastNonSpace(out);
      if (text[k] === ":" && (before === "{" || before === ",")) out += JSON.stringify(word);
      else out += WORDS[word] ?? word;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

function lastNonSpace(text: string): string | undefined {
  let i = text.length - 1;
  while (i >= 0 && /\s/.test(text[i] as string)) i--;
  return text[i];
}

/**
 * Read a string starting at `start` (either quote) and return it as a JSON string literal (escapes
 * kept, `\'` unescaped, raw control characters escaped) and the index after it. An unterminated
 * string is returned without its closing quote (`close` finishes it).
 */
function readString(text: string, start: number): [string, number] {
  const quote = text[start];
  let out = '"';
  let i = start + 1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined) return [out, text.length];
      out += next === "'" ? "'" : c + next;
      i += 2;
      continue;
    }
    if (c === quote) return [`${out}"`, i + 1];
    out += c === '"' ? '\\"' : c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t" : c;
    i++;
  }
  return [out, i];
}

/** Complete a truncated JSON text: close an open string, drop a dangling separator, close brackets. */
function close(text: string): string {
  const stack: string[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") stack.push("}");
    else if (c === "[") stack.push("]");
    else if (c === "}" || c === "]") stack.pop();
  }
  let out = inString ? `${text}"` : text;
  for (;;) {
    const trimmed = out.replace(/\s+$/, "");
    if (trimmed.endsWith(",")) out = trimmed.slice(0, -1);
    else if (trimmed.endsWith(":")) out = trimmed.slice(0, -1).replace(/"(?:[^"\\]|\\.)*"\s*$/, "");
    else if (
      /"(?:[^"\\]|\\.)*"$/.test(trimmed) &&
      /[{,]\s*"(?:[^"\\]|\\.)*"$/.test(trimmed) &&
      stack.at(-1) === "}"
    ) {
      // A key with no value yet: `{"a": 1, "b"` -> drop `"b"`.
      out = trimmed.replace(/"(?:[^"\\]|\\.)*"$/, "");
    } else {
      out = trimmed;
      break;
    }
  }
  return out + stack.reverse().join("");
}
