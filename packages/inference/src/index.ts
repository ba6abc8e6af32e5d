/**
 * @tinyagents/inference — the provider-neutral model layer: messages, requests and responses,
 * streaming, usage, errors, token estimation and the mock provider. Everything here is plain
 * JSON data plus small functions; nothing here imports @tinyagents/harness.
 */

// Time
export { type Clock, systemClock } from "./clock/index.js";
// Errors: the closed code union, provider failures, classification, normalization
export {
  abortedError,
  classifyNetworkError,
  classifyProviderFailure,
  ERROR_CODES,
  type ErrorCode,
  type ErrorSummary,
  type HeaderSource,
  isContextOverflowCode,
  isContextOverflowMessage,
  isErrorCode,
  isRetryableKind,
  ProviderError,
  type ProviderErrorInit,
  type ProviderFailureFacts,
  type ProviderFailureKind,
  parseRetryAfter,
  TinyAgentsError,
  type TinyAgentsErrorOptions,
  toTinyAgentsError,
  validationError,
} from "./errors/index.js";
// JSON data
export { assertJsonValue, isJsonObject, type JsonObject, type JsonValue } from "./json/index.js";
// Messages and content blocks: types, constructors, runtime validation
export {
  type AssistantMessage,
  assistant,
  CONTENT_BLOCK_TYPES,
  type ContentBlock,
  type ImageBlock,
  type ImageSource,
  type JsonBlock,
  MESSAGE_ROLES,
  type Message,
  type ProviderExtensionBlock,
  type ReasoningBlock,
  type RedactedReasoningBlock,
  type Role,
  reasoningText,
  type SystemMessage,
  system,
  type TextBlock,
  type ToolMessage,
  text,
  toolCall,
  toolResult,
  type UserMessage,
  user,
  validateContentBlock,
  validateMessage,
  validateMessages,
  validateToolCall,
  validateUsageShape,
} from "./message/index.js";
// Models: the ChatModel contract, requests, responses, profiles, streaming
export {
  type CacheSegment,
  type CacheSegmentRole,
  type CapabilitySet,
  type ChatModel,
  collectStream,
  type FallbackAttempt,
  type FinishItem,
  type FinishReason,
  isMessageDelta,
  type MessageDelta,
  type ModelCallOptions,
  type ModelCapabilities,
  type ModelHint,
  type ModelProfile,
  type ModelRequest,
  type ModelResolutionSource,
  type ModelResponse,
  type ModelStatus,
  type ModelStreamItem,
  type ParsedToolArguments,
  type PromptCachePolicy,
  parseToolArguments,
  permissiveProfile,
  type ReasoningDeltaItem,
  type ReasoningSettings,
  type RedactedReasoningItem,
  type RequestRetryPolicy,
  type ResolvedModel,
  type ResponseCachePolicy,
  type ResponseFormat,
  responseToStreamItems,
  StreamAccumulator,
  type StreamAccumulatorOptions,
  type StreamErrorItem,
  type StreamStartItem,
  streamFromResponse,
  streamModel,
  type TextDeltaItem,
  type ToolCallDeltaItem,
  type UsageItem,
  unmetCapabilities,
  validateModelRequest,
  validateToolSchemas,
} from "./model/index.js";
// Providers
export { MockModel, type MockModelOptions, type ScriptedMockOptions } from "./providers/index.js";
// Token estimation
export {
  CharTokenEstimator,
  type CharTokenEstimatorOptions,
  defaultTokenCounter,
  estimateTokens,
  type TokenCounter,
} from "./tokens/index.js";
// Wire-level tools
export type { InvalidToolArguments, ToolCall, ToolChoice, ToolSchema } from "./tool/index.js";
// Usage
export {
  addUsage,
  emptyUsage,
  emptyUsageTotals,
  recordUsage,
  type Usage,
  type UsageTotals,
  uncachedInputTokens,
  usage,
} from "./usage/index.js";
