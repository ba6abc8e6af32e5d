import { validationError } from "../errors/tinyagents-error.js";
import type { JsonObject } from "../json/json-value.js";
import type { ToolCall } from "../tool/tool-call.js";
import type { ContentBlock } from "./content-block.js";
import type { AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage } from "./message.js";

type Content = string | ContentBlock[];

function blocks(content: Content): ContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** A system message. */
export function system(content: Content): SystemMessage {
  return { role: "system", content: blocks(content) };
}

/** A user message. */
export function user(content: Content): UserMessage {
  return { role: "user", content: blocks(content) };
}

/** An assistant message, optionally with tool calls (each must have a non-empty id). */
export function assistant(content: Content, toolCalls: ToolCall[] = []): AssistantMessage {
  for (const call of toolCalls) assertToolCallShape(call);
  return { role: "assistant", content: blocks(content), toolCalls };
}

/** A tool result message answering the call with id `toolCallId`. */
export function toolResult(
  call: { id: string; name: string },
  content: Content,
  options: { isError?: boolean } = {},
): ToolMessage {
  if (typeof call.id !== "string" || call.id === "") {
    throw validationError(
      "toolResult: `call.id` must be a non-empty string (the id of the tool call it answers)",
      {
        field: "toolCallId",
      },
    );
  }
  return {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content: blocks(content),
    isError: options.isError ?? false,
  };
}

/**
 * Build a tool call. Ids are mandatory: they correlate the call with its result.
 * Throws a `validation` error naming the field when `id` or `name` is missing.
 */
export function toolCall(id: string, name: string, args: JsonObject = {}): ToolCall {
  const call: ToolCall = { id, name, arguments: args };
  assertToolCallShape(call);
  return call;
}

function assertToolCallShape(call: ToolCall): void {
  if (typeof call.id !== "string" || call.id === "") {
    throw validationError(
      `tool call "${String(call.name)}" has no id: \`toolCalls[].id\` is required (a non-empty string) because it correlates the call with its result`,
      { field: "id" },
    );
  }
  if (typeof call.name !== "string" || call.name === "") {
    throw validationError(
      `tool call "${call.id}" has no name: \`toolCalls[].name\` must be a non-empty string`,
      {
        field: "name",
      },
    );
  }
}

/** The concatenated text of a message's text blocks (reasoning and other blocks excluded). */
export function text(message: Message | undefined): string {
  if (message === undefined) return "";
  let out = "";
  for (const block of message.content) if (block.type === "text") out += block.text;
  return out;
}

/** The concatenated reasoning text of a message. */
export function reasoningText(message: Message): string {
  let out = "";
  for (const block of message.content) if (block.type === "reasoning") out += block.text;
  return out;
}
