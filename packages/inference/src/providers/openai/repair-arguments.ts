import { isJsonObject, type JsonObject } from "../../json/json-value.js";

/** A repaired argument text and the object it parses to. */
export interface RepairedArguments {
  text: string;
  value: JsonObject;
}

/** Leaked chat-template markers: `<|...|>`, DeepSeek's `<｜...｜>`, `<tool_call>` tags, `[TOOL_CALLS]`. */
const MARKERS =
  /<\|[^<>|]{0,64}\|>|<｜[^<>｜]{0,64}｜>|<\/?tool_calls?\|?>|<\|?\/?tool_calls?>|\[\/?TOOL_CALLS\]/g;

/**
 * The repair ladder for tool call arguments that are not a strict JSON object. In order:
 * 1. strip leaked chat-template markers (outside JSON strings);
 * 2. take the first complete JSON object in the text (drops prose before it and junk or a
 *    duplicate after it);
 * 3. relaxed JSON: single-quoted strings, unquoted keys, trailing commas, Python
 *    `True`/`False`/`None`, raw control characters inside strings, doubled outer braces and
 *    missing closing brackets are fixed;
 * 4. a JSON string that itself holds a JSON object (double-encoded arguments) is unwrapped.
 * Every fix leaves the bytes before it untouched, so a valid prefix that was already streamed
 * stays a prefix of the repaired text. Returns `undefined` when nothing yields an object.
 */
export function repairArguments(raw: string): RepairedArguments | undefined {
  const unwrapped = unwrapString(raw);
  if (unwrapped !== undefined) return unwrapped;
  const stripped = stripMarkers(raw).trim();
  const direct = strictObject(stripped);
  if (direct !== undefined) return { text: stripped, value: direct };
  const first = firstObject(stripped);
  if (first !== undefined) {
    const value = strictObject(first);
    if (value !== undefined) return { text: first, value };
  }
  const brace = stripped.indexOf("{");
  if (brace === -1) return undefined;
  const candidates = [relax(first ?? stripped.slice(brace))];
  if (/^\{\s*\{/.test(stripped.slice(brace)))
    candidates.push(relax(stripped.slice(brace).replace(/^\{\s*/, "")));
  for (const candidate of candidates) {
    const value = strictObject(candidate);
    if (value !== undefined) return { text: candidate, value };
    const closed = firstObject(candidate);
    if (closed !== undefined) {
      const inner = strictObject(closed);
      if (inner !== undefined) return { text: closed, value: inner };
    }
  }
  return undefined;
}

/** Parse `text` as JSON and return it when it is an object. */
export function strictObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function unwrapString(raw: string): RepairedArguments | undefined {
  const trimmed = raw.trim();
  if (!trimmed.startsWith('"')) return undefined;
  try {
    const inner: unknown = JSON.parse(trimmed);
    if (typeof inner !== "string") return undefined;
    const value = strictObject(inner);
    return value === undefined ? undefined : { text: inner, value };
  } catch {
    return undefined;
  }
}

/** Remove template markers that sit outside JSON strings. */
function stripMarkers(text: string): string {
  if (!text.includes("<") && !text.includes("[TOOL")) return text;
  let out = "";
  let segment = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      out += text.slice(segment, i).replace(MARKERS, "");
      segment = i;
      inString = true;
    }
  }
  return out + (inString ? text.slice(segment) : text.slice(segment).replace(MARKERS, ""));
}

/** The first balanced `{...}` (string-aware), or undefined when none closes. */
function firstObject(text: string): string | undefined {
  const start = text.indexOf("{");
  if (start === -1) return undefined;
  let depth = 0;
  let quote = "";
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote !== "") {
      if (c === "\\") i++;
      else if (c === quote) quote = "";
      continue;
    }
    if (c === '"') quote = c;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}

/** Token-preserving relaxed-JSON fixer (see {@link repairArguments}). */
function relax(text: string): string {
  let out = "";
  const closers: string[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const [literal, next] = readString(text, i, c);
      out += literal;
      i = next;
      continue;
    }
    if (c === "{") closers.push("}");
    else if (c === "[") closers.push("]");
    else if (c === "}" || c === "]") {
      closers.pop();
      out = out.replace(/,\s*$/, (match) => match.slice(1));
    } else if (/[A-Za-z_$]/.test(c)) {
      const word = /^[A-Za-z_$][\w$-]*/.exec(text.slice(i))![0];
      const after = text.slice(i + word.length);
      if (/^\s*:/.test(after) && /[{,]\s*$/.test(out)) out += JSON.stringify(word);
      else out += word === "True" ? "true" : word === "False" ? "false" : word === "None" ? "null" : word;
      i += word.length;
      continue;
    }
    out += c;
    i++;
  }
  out = out.replace(/,\s*$/, "");
  while (closers.length > 0) out += closers.pop();
  return out;
}

/** Read a string literal starting at `start` with `quote`; return it as a JSON string. */
function readString(text: string, start: number, quote: string): [string, number] {
  let body = "";
  let i = start + 1;
  let closed = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\\") {
      const next = text[i + 1] ?? "";
      body += quote === "'" && next === "'" ? "'" : c + next;
      i += 2;
      continue;
    }
    if (c === quote) {
      closed = true;
      i++;
      break;
    }
    if (quote === "'" && c === '"') body += '\\"';
    else if (c === "\n") body += "\\n";
    else if (c === "\r") body += "\\r";
    else if (c === "\t") body += "\\t";
    else body += c;
    i++;
  }
  const literal =
    quote === '"' && closed && !/[\n\r\t]/.test(text.slice(start, i)) ? text.slice(start, i) : `"${body}"`;
  return [literal, i];
}
