import type { ContentBlock, JsonValue, ToolMessage } from "@tinyagents/inference";
import type { ToolResult, ToolReturn } from "./tool.js";

/**
 * Turn what a tool's `execute` returned (normally a `ToolOutput`) into a {@link ToolResult}:
 * - a string -> one text block;
 * - a `ToolReturn` (`kind: "tool_return"`) -> its content, `isError` (default false), `raw` and
 *   `artifacts`;
 * - any other JSON value -> one json block.
 * Anything that would not survive `JSON.parse(JSON.stringify(x))` unchanged (`undefined`,
 * functions, symbols, bigints, NaN/Infinity, cycles, class instances such as Date or Map) turns
 * into an error result saying the tool returned a non-JSON value and where. Never throws.
 */
export function toToolResult(
  output: unknown,
  callId: string,
  toolName: string,
  elapsedMs: number,
): ToolResult {
  if (typeof output === "string") {
    return { callId, toolName, content: [{ type: "text", text: output }], isError: false, elapsedMs };
  }
  if (isToolReturnLike(output)) {
    const problem = toolReturnProblem(output);
    if (problem !== undefined) return nonJson(callId, toolName, problem, elapsedMs);
    const ret = output as unknown as ToolReturn; // checked by toolReturnProblem
    const result: ToolResult = {
      callId,
      toolName,
      content: ret.content,
      isError: ret.isError === true,
      elapsedMs,
    };
    if (ret.raw !== undefined) result.raw = ret.raw;
    if (ret.artifacts !== undefined) result.artifacts = ret.artifacts.slice();
    return result;
  }
  const problem = nonJsonProblem(output, "$", new Set());
  if (problem !== undefined) return nonJson(callId, toolName, problem, elapsedMs);
  return {
    callId,
    toolName,
    content: [{ type: "json", value: output as JsonValue }],
    isError: false,
    elapsedMs,
  };
}

/** An error result whose content is one text block holding `message`. */
export function errorToolResult(
  callId: string,
  toolName: string,
  message: string,
  elapsedMs: number,
): ToolResult {
  return { callId, toolName, content: [{ type: "text", text: message }], isError: true, elapsedMs };
}

/** The tool message that answers the call: `toolCallId`, `toolName`, content and `isError`. */
export function toolResultMessage(result: ToolResult): ToolMessage {
  return {
    role: "tool",
    toolCallId: result.callId,
    toolName: result.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/**
 * The size of a result's model-visible payload in UTF-8 bytes: the text of text blocks plus the
 * JSON text of json blocks (other block kinds, such as images, and `raw` are not counted).
 */
export function resultSizeBytes(result: ToolResult): number {
  let bytes = 0;
  for (const block of result.content) {
    if (block.type === "text") bytes += utf8Length(block.text);
    else if (block.type === "json") bytes += utf8Length(JSON.stringify(block.value) ?? "");
  }
  return bytes;
}

/** True when `value` is a `ToolReturn` (an object with `kind: "tool_return"` and a content array). */
export function isToolReturn(value: unknown): value is ToolReturn {
  return isToolReturnLike(value) && toolReturnProblem(value) === undefined;
}

function isToolReturnLike(value: unknown): value is { kind: "tool_return" } & Record<string, unknown> {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "tool_return";
}

function toolReturnProblem(value: Record<string, unknown>): string | undefined {
  const { content, isError, raw } = value;
  if (!Array.isArray(content)) return "a tool_return without a `content` array";
  for (const [i, block] of content.entries()) {
    if (typeof block !== "object" || block === null || typeof (block as ContentBlock).type !== "string") {
      return `content[${i}] of its tool_return is not a content block (an object with a \`type\`)`;
    }
  }
  if (isError !== undefined && typeof isError !== "boolean")
    return "a tool_return whose `isError` is not a boolean";
  const { artifacts } = value;
  if (
    artifacts !== undefined &&
    (!Array.isArray(artifacts) || artifacts.some((a) => typeof a !== "string"))
  ) {
    return "a tool_return whose `artifacts` is not an array of artifact id strings";
  }
  return (
    nonJsonProblem(content, "$.content", new Set()) ??
    (raw === undefined ? undefined : nonJsonProblem(raw, "$.raw", new Set()))
  );
}

function nonJson(callId: string, toolName: string, problem: string, elapsedMs: number): ToolResult {
  return errorToolResult(
    callId,
    toolName,
    `tool "${toolName}" returned a non-JSON value: ${problem}. A tool must return a string, plain JSON ` +
      `(strings, finite numbers, booleans, null, arrays, plain objects) or a ToolReturn; this is a bug in the tool`,
    elapsedMs,
  );
}

/** Where and why `value` is not plain JSON data, or `undefined` when it is. */
function nonJsonProblem(value: unknown, path: string, ancestors: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot represent`;
    case "undefined":
      return `${path} is undefined${path === "$" ? " (the tool returned nothing)" : ""}`;
    case "bigint":
      return `${path} is a bigint (${value}n); convert it to a number or string`;
    case "function":
    case "symbol":
      return `${path} is a ${typeof value}`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.has(object)) return `${path} refers back to an enclosing value (a cycle)`;
  ancestors.add(object);
  let problem: string | undefined;
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length && problem === undefined; i++) {
      problem = nonJsonProblem(object[i], `${path}[${i}]`, ancestors);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = object.constructor?.name || "class";
      const hint = object instanceof Date ? " (use toISOString())" : "";
      problem = `${path} is a ${kind} instance, not a plain object${hint}`;
    }
    for (const key of Object.keys(object)) {
      if (problem !== undefined) break;
      problem = nonJsonProblem((object as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
    }
  }
  ancestors.delete(object);
  return problem;
}

/** UTF-8 byte length of `text` without allocating (lone surrogates count as U+FFFD, 3 bytes). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
