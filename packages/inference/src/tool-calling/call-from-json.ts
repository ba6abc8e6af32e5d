import { isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { parseToolArguments } from "../model/stream-accumulator.js";
import { repairArguments } from "../providers/openai/repair-arguments.js";
import type { ParsedToolCall, ToolCallDialect } from "./parsed-tool-call.js";

/**
 * Keys that may carry a call's arguments, in priority order. Models drift from `arguments` to
 * these; the tool NAME is never aliased (only `name`, or `function.name`, is read).
 */
export const ARGUMENT_KEYS = ["arguments", "args", "parameters", "params", "input"] as const;

/** A bare tool name in unmarked JSON: an identifier, not prose. */
const BARE_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** How strictly a JSON value is read as tool calls. */
export interface JsonCallContext {
  /**
   * The value sits behind an explicit tool-call marker (a tag, `<invoke>`, a ```` ```tool_call ````
   * fence, a `tool_calls` key or a `function` wrapper): every argument-key alias is accepted.
   * Without one, the object must say `"arguments"` and name a known tool (when tools are known).
   */
  explicit: boolean;
  dialect: ToolCallDialect;
  /** Known tool names; only consulted for non-explicit values. */
  known: ReadonlySet<string> | undefined;
}

/**
 * Read a JSON value as tool calls: a call object (`{name, arguments}` or an OpenAI-style
 * `{type:"function", function:{name, arguments}}`), an array of them, or a `{tool_calls:[...]}`
 * envelope. Without an explicit marker an array counts only when EVERY element is a call.
 * Returns `[]` when the value is not tool-call shaped.
 */
export function callsFromJson(value: JsonValue, context: JsonCallContext): ParsedToolCall[] {
  if (Array.isArray(value)) {
    const calls: ParsedToolCall[] = [];
    for (const item of value) {
      const call = callFromObject(item, context);
      if (call !== undefined) calls.push(call);
      else if (!context.explicit) return [];
    }
    return calls;
  }
  if (!isJsonObject(value)) return [];
  if (Array.isArray(value.tool_calls)) {
    const inner = { ...context, explicit: true };
    const calls: ParsedToolCall[] = [];
    for (const item of value.tool_calls) {
      const call = callFromObject(item, inner);
      if (call !== undefined && allowed(call.name, context)) calls.push(call);
    }
    return calls;
  }
  const call = callFromObject(value, context);
  return call === undefined ? [] : [call];
}

function callFromObject(value: JsonValue | undefined, context: JsonCallContext): ParsedToolCall | undefined {
  if (!isJsonObject(value)) return undefined;
  const fn = value.function;
  if (isJsonObject(fn) && typeof fn.name === "string" && fn.name.trim() !== "") {
    const name = fn.name.trim();
    if (!allowed(name, context)) return undefined;
    const args = firstArgumentValue(fn) ?? firstArgumentValue(value);
    return makeCall(name, args, context.dialect);
  }
  if (typeof value.name !== "string") return undefined;
  const name = value.name.trim();
  if (name === "" || !allowed(name, context)) return undefined;
  if (context.explicit) return makeCall(name, firstArgumentValue(value), context.dialect);
  if (!("arguments" in value)) return undefined;
  return makeCall(name, value.arguments, context.dialect);
}

function allowed(name: string, context: JsonCallContext): boolean {
  if (context.explicit) return true;
  if (!BARE_NAME.test(name)) return false;
  return context.known === undefined || context.known.has(name);
}

function firstArgumentValue(object: JsonObject): JsonValue | undefined {
  for (const key of ARGUMENT_KEYS) if (key in object) return object[key];
  return undefined;
}

/** A parsed call with its arguments read by {@link readArguments}. */
export function makeCall(
  name: string,
  args: JsonValue | undefined,
  dialect: ToolCallDialect,
): ParsedToolCall {
  const read = readArguments(args);
  const call: ParsedToolCall = { name, arguments: read.arguments, dialect };
  if (read.invalid !== undefined) call.invalid = read.invalid;
  return call;
}

/**
 * Turn an arguments value into an object: an object as is; missing or `null` -> `{}`; a string
 * holding JSON -> parsed (with the relaxed-JSON repair ladder); anything else -> `{}` plus
 * `invalid` (`{raw, error}` as `parseToolArguments` reports it for the raw text).
 */
export function readArguments(args: JsonValue | undefined): ReturnType<typeof parseToolArguments> {
  if (args === undefined || args === null) return { arguments: {} };
  if (isJsonObject(args)) return { arguments: args };
  if (typeof args === "string") return readArgumentText(args);
  return parseToolArguments(JSON.stringify(args));
}

/** Read argument TEXT: empty -> `{}`, JSON object -> it, repairable -> repaired, else invalid. */
export function readArgumentText(text: string): ReturnType<typeof parseToolArguments> {
  const parsed = parseToolArguments(text);
  if (parsed.invalid === undefined) return parsed;
  const repaired = repairArguments(text);
  return repaired === undefined ? parsed : { arguments: repaired.value };
}
