import type { Message } from "../message/message.js";
import type { ToolSchema } from "../tool/tool-schema.js";

/**
 * Counts (or estimates) tokens. The default is the cheap {@link CharTokenEstimator}; plug in an
 * exact tokenizer by implementing this interface. All counts are non-negative integers.
 */
export interface TokenCounter {
  /** Tokens in a piece of text. */
  countText(text: string): number;
  /** Tokens of one message: its content, tool calls and per-message overhead. */
  countMessage(message: Message): number;
  /** Tokens of a transcript (the sum of its messages). */
  countMessages(messages: readonly Message[]): number;
  /** Tokens the tool declarations add to a prompt. */
  countTools(tools: readonly ToolSchema[]): number;
}
