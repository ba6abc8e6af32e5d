import type { ToolCall } from "../tool/tool-call.js";
import type { Usage } from "../usage/usage.js";
import type { ContentBlock } from "./content-block.js";

/** Instructions from the application. Providers that distinguish `developer` map it there. */
export interface SystemMessage {
  role: "system";
  content: ContentBlock[];
}

/** Input from the user (or from the application on the user's behalf). */
export interface UserMessage {
  role: "user";
  content: ContentBlock[];
  /** Optional participant name, passed to providers that support it. */
  name?: string;
}

/** A model turn: content plus any tool calls it asked for. */
export interface AssistantMessage {
  role: "assistant";
  content: ContentBlock[];
  toolCalls: ToolCall[];
  /** Provider message id, when one was given. */
  id?: string;
  /** Usage of the call that produced this message. */
  usage?: Usage;
}

/** The result of one tool call, correlated to it by `toolCallId`. */
export interface ToolMessage {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: ContentBlock[];
  isError: boolean;
}

/**
 * The internal currency of the harness: plain JSON data, a discriminated union on `role`.
 * Everything here survives `JSON.parse(JSON.stringify(x))` unchanged.
 */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** The closed list of roles. */
export const MESSAGE_ROLES = [
  "system",
  "user",
  "assistant",
  "tool",
] as const satisfies readonly Message["role"][];

/** A message's role. */
export type Role = Message["role"];
