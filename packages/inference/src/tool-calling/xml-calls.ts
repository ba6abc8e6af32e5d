import { isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import type { ToolSchema } from "../tool/tool-schema.js";
import { makeCall, readArgumentText } from "./call-from-json.js";
import type { ParsedToolCall, ToolCallDialect } from "./parsed-tool-call.js";

const ATTR_NAME = /\bname\s*=\s*(?:"([^"]*)"|'([^']*)')/i;
const INVOKE = /<invoke\s+([^<>]*)>([\s\S]*?)<\/\s*invoke\s*>/gi;
const PARAMETER = /<parameter\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*>([\s\S]*?)<\/\s*parameter\s*>/gi;
const QWEN_FUNCTION = /<function=([^<>\s]+)\s*>([\s\S]*?)(?:<\/\s*function\s*>|$)/gi;
const QWEN_PARAMETER = /<parameter=([^<>\s]+)\s*>([\s\S]*?)<\/\s*parameter\s*>/gi;

/** The `name="..."` attribute in a tag's attribute text, trimmed; `undefined` when absent or empty. */
export function nameAttribute(attributes: string | undefined): string | undefined {
  if (attributes === undefined) return undefined;
  const match = ATTR_NAME.exec(attributes);
  const name = (match?.[1] ?? match?.[2])?.trim();
  return name === undefined || name === "" ? undefined : name;
}

/**
 * The calls of every complete `<invoke name="x">...</invoke>` block in `text`, and the index just
 * past the last one (0 when there is none). Each `<parameter name="k">v</parameter>` becomes an
 * argument (see {@link parameterValue}); an invoke with no parameters but a JSON body takes the
 * body as its arguments.
 */
export function invokeCalls(
  text: string,
  schemas: ReadonlyMap<string, ToolSchema>,
): { calls: ParsedToolCall[]; end: number } {
  const calls: ParsedToolCall[] = [];
  let end = 0;
  INVOKE.lastIndex = 0;
  for (let match = INVOKE.exec(text); match !== null; match = INVOKE.exec(text)) {
    const name = nameAttribute(match[1]);
    end = match.index + match[0].length;
    if (name !== undefined) calls.push(namedBodyCall(name, match[2] ?? "", schemas, "xml", PARAMETER));
  }
  return { calls, end };
}

/** The calls of Qwen-style `<function=name><parameter=k>v</parameter></function>` blocks in `text`. */
export function qwenFunctionCalls(text: string, schemas: ReadonlyMap<string, ToolSchema>): ParsedToolCall[] {
  const calls: ParsedToolCall[] = [];
  QWEN_FUNCTION.lastIndex = 0;
  for (let match = QWEN_FUNCTION.exec(text); match !== null; match = QWEN_FUNCTION.exec(text)) {
    const name = match[1]?.trim() ?? "";
    if (name !== "") calls.push(namedBodyCall(name, match[2] ?? "", schemas, "tag", QWEN_PARAMETER));
    if (match[0] === "") QWEN_FUNCTION.lastIndex++;
  }
  return calls;
}

/**
 * A call whose name is known and whose body holds either parameter elements (matched by
 * `pattern`: group 1 or 2 = key, last group = value) or JSON arguments.
 */
export function namedBodyCall(
  name: string,
  body: string,
  schemas: ReadonlyMap<string, ToolSchema>,
  dialect: ToolCallDialect,
  pattern: RegExp = PARAMETER,
): ParsedToolCall {
  const args: JsonObject = {};
  let found = false;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(body); match !== null; match = pattern.exec(body)) {
    const key = (pattern === PARAMETER ? (match[1] ?? match[2]) : match[1])?.trim() ?? "";
    const raw = match[match.length - 1] ?? "";
    found = true;
    if (key !== "") args[key] = parameterValue(raw, propertyType(schemas.get(name), key));
  }
  if (found || body.trim() === "") return makeCall(name, args, dialect);
  const read = readArgumentText(body);
  const call: ParsedToolCall = { name, arguments: read.arguments, dialect };
  if (read.invalid !== undefined) call.invalid = read.invalid;
  return call;
}

/**
 * A `<parameter>` value: one surrounding newline is dropped; a `string`-typed property keeps the
 * text verbatim; otherwise text that parses as JSON (number, boolean, null, array, object) becomes
 * that value and anything else stays a (trimmed) string.
 */
export function parameterValue(raw: string, type: JsonValue | undefined): JsonValue {
  const text = raw.replace(/^\r?\n/, "").replace(/\r?\n$/, "");
  if (type === "string") return text;
  const trimmed = text.trim();
  try {
    const value = JSON.parse(trimmed) as JsonValue;
    if (typeof value !== "string") return value;
  } catch {
    // plain text
  }
  return trimmed;
}

function propertyType(schema: ToolSchema | undefined, key: string): JsonValue | undefined {
  const properties = schema?.parameters.properties;
  if (!isJsonObject(properties)) return undefined;
  const property = properties[key];
  return isJsonObject(property) ? property.type : undefined;
}
