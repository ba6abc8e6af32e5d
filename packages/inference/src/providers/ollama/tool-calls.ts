import { isJsonObject, type JsonValue } from "../../json/json-value.js";
import { parseToolArguments } from "../../model/stream-accumulator.js";
import type { ToolCall } from "../../tool/tool-call.js";

/**
 * A stable id for a tool call that arrived without one (older Ollama versions send none):
 * `call_` + 8 hex digits of an FNV-1a hash over the salt, the call's position, its name and its
 * argument text. The same bytes always give the same id (streaming and unary agree, replays are
 * reproducible); the adapter salts with the request's message count, so identical calls in
 * later turns of a growing conversation still get different ids.
 */
export function ollamaToolCallId(salt: number, index: number, name: string, argumentsText: string): string {
  let hash = 0x811c9dc5;
  const input = `${salt}\u0000${index}\u0000${name}\u0000${argumentsText}`;
  for (let i = 0; i < input.length; i++) {
    hash ^= input.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `call_${(hash >>> 0).toString(16).padStart(8, "0")}`;
}

/** A wire tool call reduced to what the adapter needs: id (may be empty), name, argument text. */
export interface OllamaCallParts {
  id: string;
  name: string;
  /** The arguments as JSON text (`JSON.stringify` of the object Ollama sends). */
  argumentsText: string;
}

/**
 * Read one entry of `message.tool_calls`. `function.arguments` is normally an object; a string is
 * taken as JSON text as is; anything else counts as no arguments. Returns `undefined` for an
 * entry that is not an object.
 */
export function readOllamaToolCall(value: JsonValue): OllamaCallParts | undefined {
  if (!isJsonObject(value)) return undefined;
  const fn = isJsonObject(value.function) ? value.function : {};
  const args = fn.arguments;
  return {
    id: typeof value.id === "string" ? value.id : "",
    name: typeof fn.name === "string" ? fn.name : "",
    argumentsText:
      typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args),
  };
}

/** Build the neutral tool call at `index` (id synthesized when missing; see {@link ollamaToolCallId}). */
export function toToolCall(parts: OllamaCallParts, index: number, salt: number): ToolCall {
  const parsed = parseToolArguments(parts.argumentsText);
  const call: ToolCall = {
    id: parts.id !== "" ? parts.id : ollamaToolCallId(salt, index, parts.name, parts.argumentsText),
    name: parts.name,
    arguments: parsed.arguments,
  };
  if (parsed.invalid !== undefined) call.invalid = parsed.invalid;
  return call;
}
