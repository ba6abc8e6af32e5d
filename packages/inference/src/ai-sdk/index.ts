export type {
  AiSdkCallOptions,
  AiSdkGenerateResult,
  AiSdkLanguageModel,
  AiSdkMessage,
  AiSdkProviderOptions,
  AiSdkStreamResult,
} from "./ai-sdk-types.js";
export {
  AI_SDK_SPECIFICATION_VERSIONS,
  AiSdkChatModel,
  type FromAiSdkOptions,
  fromAiSdk,
} from "./from-ai-sdk.js";
export { type AiSdkErrorContext, aiSdkError } from "./map-error.js";
export { type AiSdkMappingContext, toAiSdkCallOptions, toAiSdkPrompt } from "./map-prompt.js";
export { mapAiSdkFinishReason, normalizeAiSdkUsage } from "./map-usage.js";
export { decodeAiSdkReasoning, encodeAiSdkReasoning } from "./reasoning-metadata.js";
export { AiSdkPartTranslator } from "./stream-parts.js";
