export type { ChatModel, ModelCallOptions, StreamingChatModel } from "./chat-model.js";
export {
  type CapabilitySet,
  type ModelCapabilities,
  type ModelProfile,
  type ModelStatus,
  permissiveProfile,
  unmetCapabilities,
} from "./model-profile.js";
export type {
  CacheSegment,
  CacheSegmentRole,
  CacheTtl,
  ModelHint,
  ModelRequest,
  PromptCachePolicy,
  ReasoningSettings,
  RequestRetryPolicy,
  ResponseCachePolicy,
  ResponseFormat,
} from "./model-request.js";
export type { FinishReason, ModelResponse } from "./model-response.js";
export type { FallbackAttempt, ModelResolutionSource, ResolvedModel } from "./resolved-model.js";
export {
  collectStream,
  MAX_ASSEMBLED_CHARS,
  type ParsedToolArguments,
  parseToolArguments,
  StreamAccumulator,
  type StreamAccumulatorOptions,
  streamErrorItem,
} from "./stream-accumulator.js";
export { responseToStreamItems, streamFromResponse, streamModel } from "./stream-from-response.js";
export {
  type FinishItem,
  isMessageDelta,
  type MessageDelta,
  type ModelStreamItem,
  type ReasoningDeltaItem,
  type RedactedReasoningItem,
  type StreamErrorItem,
  type StreamStartItem,
  type TextDeltaItem,
  type ToolCallDeltaItem,
  type UsageItem,
} from "./stream-item.js";
export { validateModelRequest, validateToolSchemas } from "./validate-request.js";
