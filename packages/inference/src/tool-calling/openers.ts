/**
 * Recognising where tool-call markup may START in model text, one position at a time. Each
 * classifier answers for the text available so far: `"no"` (and more text can never change
 * that), `"partial"` (the text ends inside what could still become an opener: wait for more),
 * or the opener. This monotonicity is what makes the streaming scanner agree with the batch
 * parser however the text is split.
 */

/** What kind of markup an opener starts. */
export type OpenerKind =
  /** `<tool_call ...>` and its spellings, and a bare `<invoke>` (JSON body). */
  | "tag"
  /** A stray closing tag of the family (`</tool_call>`, `</invoke>`, `</function_calls>`). */
  | "close"
  /** `<function_calls>` (Anthropic's legacy wrapper around `<invoke>` blocks). */
  | "function_calls"
  /** `<invoke name="...">` with `<parameter>` children. */
  | "invoke"
  /** A markdown code fence: ```` ```lang ```` and a newline. */
  | "fence"
  /** A bare JSON object whose first key is tool-call-like. */
  | "json";

/** A recognised opener. */
export interface Opener {
  kind: OpenerKind;
  /** Index of its first character. */
  start: number;
  /** Index just past it (where its body starts). */
  bodyStart: number;
  /** Lower-cased tag name (tags) or fence language (fences). */
  name: string;
  /** Attribute text of a tag (`name="x"`), when any. */
  attributes?: string;
}

/** The answer of a classifier. */
export type Classified = "no" | "partial" | Opener;

/** Tag names of the `<tool_call>` family. */
const TAG_FAMILY = ["tool_call", "tool-call", "toolcall", "tool_calls", "tool-calls"];
const KNOWN_TAGS = [...TAG_FAMILY, "invoke", "function_calls"];
/** Longest opener tag we wait for (attributes included). */
const MAX_TAG = 256;
/** Longest fence info line we wait for. */
const MAX_FENCE_INFO = 48;
const FENCE_INFO = /^[^`\n]*$/;
/** First keys that make a bare `{` worth holding back until it closes. */
const BARE_KEYS = new Set(["name", "function", "tool_calls", "arguments", "id", "type"]);
const MAX_BARE_LEAD = 32;

/** True for a name of the `<tool_call>` tag family (lower-case). */
export function isToolCallTag(name: string): boolean {
  return TAG_FAMILY.includes(name);
}

/** Classify a `<` at `i`. `final` means no more text will come. */
export function classifyTag(text: string, i: number, final: boolean): Classified {
  let j = i + 1;
  const closing = text[j] === "/";
  if (closing) j++;
  const nameStart = j;
  while (j < text.length && /[A-Za-z0-9_-]/.test(text[j]!)) j++;
  const name = text.slice(nameStart, j).toLowerCase();
  if (j >= text.length) {
    if (final) return "no";
    return KNOWN_TAGS.some((known) => known.startsWith(name)) ? "partial" : "no";
  }
  if (!KNOWN_TAGS.includes(name)) return "no";
  let k = j;
  while (k < text.length && k - i <= MAX_TAG && text[k] !== ">" && text[k] !== "<") k++;
  if (k - i > MAX_TAG || text[k] === "<") return "no";
  if (k >= text.length) return final ? "no" : "partial";
  const attributes = text.slice(j, k);
  if (attributes !== "" && !/^\s/.test(attributes)) return "no";
  const bodyStart = k + 1;
  if (closing) return attributes.trim() === "" ? { kind: "close", start: i, bodyStart, name } : "no";
  const opener: Opener = { kind: "tag", start: i, bodyStart, name };
  if (attributes.trim() !== "") opener.attributes = attributes;
  if (name === "function_calls") opener.kind = "function_calls";
  else if (name === "invoke" && attributes.trim() !== "") opener.kind = "invoke";
  return opener;
}

/** Classify a backtick at `i`: a fence opener is three backticks, an info word, and a newline. */
export function classifyFence(text: string, i: number, final: boolean): Classified {
  const available = text.length - i;
  if (available < 3) return !final && "```".startsWith(text.slice(i)) ? "partial" : "no";
  if (!text.startsWith("```", i)) return "no";
  const newline = text.indexOf("\n", i + 3);
  const info = text.slice(
    i + 3,
    newline === -1 ? Math.min(text.length, i + 3 + MAX_FENCE_INFO + 1) : newline,
  );
  if (info.length > MAX_FENCE_INFO || !FENCE_INFO.test(info)) return "no";
  if (newline === -1) return final ? "no" : "partial";
  const language = info.trim().split(/\s+/)[0] ?? "";
  return { kind: "fence", start: i, bodyStart: newline + 1, name: language.toLowerCase() };
}

/** Classify a `{` at `i`: an object whose first key is one of the tool-call keys. */
export function classifyBareJson(text: string, i: number, final: boolean): Classified {
  let j = i + 1;
  while (j < text.length && j - i <= MAX_BARE_LEAD && /\s/.test(text[j]!)) j++;
  if (j - i > MAX_BARE_LEAD) return "no";
  if (j >= text.length) return final ? "no" : "partial";
  if (text[j] !== '"') return "no";
  const keyStart = j + 1;
  let k = keyStart;
  while (k < text.length && k - keyStart <= 16 && /[a-z_]/.test(text[k]!)) k++;
  if (k >= text.length) {
    if (final) return "no";
    const partialKey = text.slice(keyStart, k);
    return [...BARE_KEYS].some((key) => key.startsWith(partialKey)) ? "partial" : "no";
  }
  if (text[k] !== '"' || !BARE_KEYS.has(text.slice(keyStart, k))) return "no";
  return { kind: "json", start: i, bodyStart: i, name: "json" };
}
