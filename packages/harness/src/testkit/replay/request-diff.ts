import { isJsonObject, type JsonObject, type JsonValue } from "@tinyagents/inference";
import type { CassetteRequest } from "./cassette.js";

/** One field that differs between the recorded and the live request. */
export interface FieldDifference {
  /** The field's path: `system`, `messages[4].parts[0].response`, `tools[2].parameters.properties.city`. */
  path: string;
  kind: "added" | "removed" | "changed";
  expected?: JsonValue;
  actual?: JsonValue;
}

type Segment = string | number;

function formatPath(segments: readonly Segment[]): string {
  let out = "";
  for (const s of segments) out += typeof s === "number" ? `[${s}]` : out === "" ? s : `.${s}`;
  return out;
}

/** Parse `messages[*].parts[0].content` into segments (`*` stays a wildcard). */
function parsePattern(pattern: string): Segment[] {
  const segments: Segment[] = [];
  for (const piece of pattern.split(".")) {
    const match = /^([^[\]]*)((?:\[[^\]]*\])*)$/.exec(piece);
    if (match === null) {
      segments.push(piece);
      continue;
    }
    if (match[1] !== "") segments.push(match[1] as string);
    for (const index of (match[2] ?? "").match(/\[([^\]]*)\]/g) ?? []) {
      const inner = index.slice(1, -1);
      segments.push(inner === "*" ? "*" : Number(inner));
    }
  }
  return segments;
}

/** True when `path` is at or below one of the ignored patterns. */
function ignored(path: readonly Segment[], patterns: readonly Segment[][]): boolean {
  return patterns.some((p) => p.length <= path.length && p.every((seg, i) => seg === "*" || seg === path[i]));
}

/** Every string in `value` with the matches of `masks` replaced by `<masked>`. */
export function applyMasks(value: JsonValue, masks: readonly RegExp[]): JsonValue {
  if (masks.length === 0) return value;
  if (typeof value === "string") {
    let text = value;
    for (const mask of masks) text = text.replace(mask, "<masked>");
    return text;
  }
  if (Array.isArray(value)) return value.map((v) => applyMasks(v, masks));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined) out[key] = applyMasks(v, masks);
  return out;
}

/** Compiled tolerances for {@link diffRequests}. */
export interface DiffTolerances {
  ignore: readonly string[];
  mask: readonly RegExp[];
}

/**
 * The fields in which `actual` differs from `expected`, depth first in document order (so the
 * first difference is the first thing a reader of the request would notice), minus ignored paths.
 */
export function diffRequests(
  expected: CassetteRequest,
  actual: CassetteRequest,
  tolerances: DiffTolerances,
): FieldDifference[] {
  const patterns = tolerances.ignore.map(parsePattern);
  const out: FieldDifference[] = [];
  const e = applyMasks(expected as unknown as JsonValue, tolerances.mask) as JsonObject;
  const a = applyMasks(actual as unknown as JsonValue, tolerances.mask) as JsonObject;
  // Document order: what the model reads first.
  for (const key of ["system", "tools", "messages", "parameters", "responseFormat"]) {
    walk(e[key], a[key], [key], patterns, out);
  }
  return out;
}

function walk(
  expected: JsonValue | undefined,
  actual: JsonValue | undefined,
  path: Segment[],
  patterns: readonly Segment[][],
  out: FieldDifference[],
): void {
  if (ignored(path, patterns)) return;
  if (expected === undefined && actual === undefined) return;
  if (expected === undefined) {
    out.push({ path: formatPath(path), kind: "added", actual: actual as JsonValue });
    return;
  }
  if (actual === undefined) {
    out.push({ path: formatPath(path), kind: "removed", expected });
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const n = Math.max(expected.length, actual.length);
    for (let i = 0; i < n; i++) walk(expected[i], actual[i], [...path, i], patterns, out);
    return;
  }
  if (isJsonObject(expected) && isJsonObject(actual)) {
    const keys = [...Object.keys(expected)];
    for (const key of Object.keys(actual)) if (!(key in expected)) keys.push(key);
    for (const key of keys) walk(expected[key], actual[key], [...path, key], patterns, out);
    return;
  }
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    out.push({ path: formatPath(path), kind: "changed", expected, actual });
  }
}

const MAX_SHOWN = 80;

/** A value for a one-line message: strings quoted and cut, others as JSON. */
export function shown(value: JsonValue | undefined): string {
  const text = JSON.stringify(value) ?? "undefined";
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** The first line at which two texts differ (1-based), with both versions of it. */
function firstLineChange(expected: string, actual: string): { line: number; was: string; now: string } {
  const e = expected.split("\n");
  const a = actual.split("\n");
  for (let i = 0; i < Math.max(e.length, a.length); i++) {
    if (e[i] !== a[i]) return { line: i + 1, was: e[i] ?? "(no line)", now: a[i] ?? "(no line)" };
  }
  return { line: 1, was: expected, now: actual };
}

/** The message at `messages[index]` as a reader would name it. */
function describeMessage(messages: JsonValue | undefined, index: number): string {
  const message = Array.isArray(messages) ? messages[index] : undefined;
  if (!isJsonObject(message)) return "message";
  const parts = Array.isArray(message.parts) ? message.parts : [];
  const first = parts[0];
  if (message.role === "tool" && isJsonObject(first) && typeof first.id === "string")
    return `tool result of ${first.id}`;
  if (message.role === "assistant") {
    const calls = parts.filter((p) => isJsonObject(p) && p.type === "tool_call");
    return calls.length > 0
      ? `assistant message with tool calls ${calls.map((c) => (c as JsonObject).id).join(", ")}`
      : "assistant message";
  }
  return `${String(message.role)} message`;
}

/**
 * One line naming what changed, in the reader's terms: "system prompt changed (line 4): …",
 * "tools[2].parameters.properties.city added", "message 5 differs: tool result of call_7 …".
 */
export function describeDifference(
  difference: FieldDifference,
  expected: CassetteRequest,
  actual: CassetteRequest,
): string {
  const { path, kind } = difference;
  if (path === "system" && kind === "changed") {
    const change = firstLineChange(String(difference.expected), String(difference.actual));
    const [was, now] = aroundChange(change.was, change.now);
    return `system prompt changed (line ${change.line}): was ${was}, now ${now}`;
  }
  if (path === "system") return `system prompt ${kind}`;
  const message = /^messages\[(\d+)\](.*)$/.exec(path);
  if (message !== null) {
    const index = Number(message[1]);
    const rest = message[2] ?? "";
    const side = kind === "added" ? actual.messages : expected.messages;
    const what = describeMessage(side, index);
    if (rest === "") return `message ${index + 1} ${kind === "changed" ? "differs" : kind}: ${what}`;
    return `message ${index + 1} differs: ${what}: ${path} ${detail(difference)}`;
  }
  const tool = /^tools\[(\d+)\]/.exec(path);
  if (tool !== null) {
    const list = (kind === "added" ? actual.tools : expected.tools) ?? [];
    const name = list[Number(tool[1])]?.name;
    return `${path} ${detail(difference)}${typeof name === "string" ? ` (tool "${name}")` : ""}`;
  }
  if (path.startsWith("responseFormat")) return `response format changed: ${path} ${detail(difference)}`;
  return `${path} ${detail(difference)}`;
}

function detail(difference: FieldDifference): string {
  if (difference.kind === "added") return `added: ${shown(difference.actual)}`;
  if (difference.kind === "removed") return `removed (was ${shown(difference.expected)})`;
  const [was, now] = aroundChange(difference.expected, difference.actual);
  return `changed: was ${was}, now ${now}`;
}

/** How far before the first differing character a long text starts being shown. */
const LEAD = 24;

/**
 * Both values for a "changed" line. Long texts that differ late (a tool result's last field)
 * are shown from just before the first differing character, so the change is always visible.
 */
export function aroundChange(
  expected: JsonValue | undefined,
  actual: JsonValue | undefined,
): [string, string] {
  if (typeof expected !== "string" || typeof actual !== "string") return [shown(expected), shown(actual)];
  const e = JSON.stringify(expected);
  const a = JSON.stringify(actual);
  if (e.length <= MAX_SHOWN && a.length <= MAX_SHOWN) return [e, a];
  let i = 0;
  while (i < e.length && i < a.length && e[i] === a[i]) i++;
  // Visible from the start already: show the texts as usual.
  if (i < MAX_SHOWN - LEAD) return [shown(expected), shown(actual)];
  const start = i - LEAD;
  const cut = (text: string) => {
    const piece = `${start > 0 ? "…" : ""}${text.slice(start, start + MAX_SHOWN)}`;
    return start + MAX_SHOWN < text.length ? `${piece}…` : piece;
  };
  return [cut(e), cut(a)];
}
