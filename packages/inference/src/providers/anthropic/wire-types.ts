import type { JsonObject, JsonValue } from "../../json/json-value.js";

/**
 * The subset of the Anthropic Messages API request body (`POST /v1/messages`) this adapter
 * writes. Type aliases (not interfaces) so every shape is assignable to `JsonValue`.
 */

/** A prompt-cache breakpoint marker. `ttl` is omitted for the default five minutes. */
export type AnthropicCacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" };

/** `text` content block. Never empty: the API rejects empty text blocks. */
export type AnthropicTextBlock = { type: "text"; text: string; cache_control?: AnthropicCacheControl };

/** `image` content block: inline base64 bytes or a URL the API fetches. */
export type AnthropicImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: string; data: string } | { type: "url"; url: string };
  cache_control?: AnthropicCacheControl;
};

/** An assistant `tool_use` block (echoing a previous call). */
export type AnthropicToolUseBlock = {
  type: "tool_use";
  id: string;
  name: string;
  input: JsonObject;
  cache_control?: AnthropicCacheControl;
};

/** A user-turn `tool_result` block answering the `tool_use` block with id `tool_use_id`. */
export type AnthropicToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content?: Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl;
};

/** Extended-thinking block, sent back verbatim (text and signature) in later turns. */
export type AnthropicThinkingBlock = { type: "thinking"; thinking: string; signature: string };

/** Encrypted thinking, sent back verbatim. */
export type AnthropicRedactedThinkingBlock = { type: "redacted_thinking"; data: string };

/** A block taken verbatim from a `provider_extension` content block whose provider is `anthropic`. */
export type AnthropicPassthroughBlock = { [key: string]: JsonValue };

/** Any request content block. */
export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

/** One turn of `messages`. Content is always written as an array of blocks. */
export type AnthropicMessageParam = {
  role: "user" | "assistant";
  content: Array<AnthropicContentBlock | AnthropicPassthroughBlock>;
};

/** A custom tool declaration. */
export type AnthropicToolParam = {
  name: string;
  description?: string;
  input_schema: JsonObject;
  strict?: boolean;
  cache_control?: AnthropicCacheControl;
};

/** `tool_choice`; `disable_parallel_tool_use` is not accepted with `none`. */
export type AnthropicToolChoice =
  | { type: "auto"; disable_parallel_tool_use?: boolean }
  | { type: "any"; disable_parallel_tool_use?: boolean }
  | { type: "tool"; name: string; disable_parallel_tool_use?: boolean }
  | { type: "none" };

/** The request body. `providerOptions` keys the adapter does not set are merged in verbatim. */
export type AnthropicRequestBody = {
  model: string;
  max_tokens: number;
  messages: AnthropicMessageParam[];
  system?: AnthropicTextBlock[];
  tools?: AnthropicToolParam[];
  tool_choice?: AnthropicToolChoice;
  thinking?: { type: "enabled"; budget_tokens: number };
  output_config?: {
    effort?: "low" | "medium" | "high";
    format?: { type: "json_schema"; schema: JsonObject };
  };
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  stream?: boolean;
};
