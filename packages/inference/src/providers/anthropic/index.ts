export { AnthropicModel } from "./anthropic-model.js";
export {
  type AnthropicModelOptions,
  DEFAULT_ANTHROPIC_BASE_URL,
  DEFAULT_ANTHROPIC_MAX_TOKENS,
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_ANTHROPIC_VERSION,
} from "./anthropic-options.js";
export {
  ANTHROPIC_MAX_CACHE_BREAKPOINTS,
  type AnthropicCacheLayout,
  placeAnthropicCacheBreakpoints,
} from "./cache-breakpoints.js";
export {
  type AnthropicCacheableBlock,
  type AnthropicMappedMessages,
  toAnthropicMessages,
} from "./map-messages.js";
export {
  ANTHROPIC_JSON_OBJECT_INSTRUCTION,
  ANTHROPIC_MIN_THINKING_BUDGET,
  type AnthropicRequestSettings,
  toAnthropicRequest,
  toAnthropicTool,
  toAnthropicToolChoice,
} from "./map-request.js";
export { parseAnthropicResponse } from "./parse-response.js";
export { AnthropicStreamParser, anthropicErrorEventItem } from "./stream-parser.js";
export { mapAnthropicStopReason, mergeAnthropicUsage, normalizeAnthropicUsage } from "./usage.js";
export type {
  AnthropicCacheControl,
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessageParam,
  AnthropicPassthroughBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicRequestBody,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolChoice,
  AnthropicToolParam,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from "./wire-types.js";
