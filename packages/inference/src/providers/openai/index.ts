export { ChunkParser, type ChunkParserOptions } from "./chunk-parser.js";
export { mapFinishReason } from "./finish-reason.js";
export { type MessageMappingContext, mapMessages } from "./map-messages.js";
export { mapRequest, type RequestMappingContext } from "./map-request.js";
export { normalizeBaseUrl, OpenAiChatModel, type OpenAiChatModelOptions } from "./openai-chat-model.js";
export {
  anthropicCompatible,
  type CompatibleOptions,
  compatible,
  deepseek,
  type EnvSource,
  fromPreset,
  groq,
  llamaCpp,
  lmStudio,
  mistral,
  ollamaCompatible,
  openai,
  openrouter,
  PRESETS,
  type PresetName,
  type PresetOptions,
  type PresetSpec,
  together,
  vllm,
  xai,
} from "./presets.js";
export { type ProbeCheck, type ProbeOptions, type ProbeReport, probeOpenAiCompatible } from "./probe.js";
export {
  COMPATIBLE_QUIRKS,
  isCurrentOpenAiFamily,
  isReasoningFamily,
  mergeQuirks,
  OPENAI_QUIRKS,
  type OpenAiQuirks,
} from "./quirks.js";
export { type RepairedArguments, repairArguments } from "./repair-arguments.js";
export { toStrictSchema } from "./strict-schema.js";
export { type SplitPiece, ThinkTagSplitter, type ThinkTagSplitterOptions } from "./think-tag-splitter.js";
export { ToolArgumentsBuffer } from "./tool-arguments.js";
export { ToolCallAssembler, type ToolCallAssemblerOptions } from "./tool-call-assembler.js";
export { randomToolCallId, toMistralToolCallId } from "./tool-call-ids.js";
export { normalizeOpenAiUsage, usageFromTimings } from "./usage.js";
