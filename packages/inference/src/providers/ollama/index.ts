export { DEFAULT_OLLAMA_BASE_URL, ollamaBaseUrlFromHost } from "./host.js";
export { type OllamaRequestSettings, toOllamaMessage, toOllamaRequest } from "./map-request.js";
export { OllamaModel } from "./ollama-model.js";
export { DEFAULT_OLLAMA_MODEL, type OllamaModelOptions } from "./ollama-options.js";
export { ollamaBodyError, parseOllamaResponse } from "./parse-response.js";
export { OllamaStreamParser } from "./stream-parser.js";
export { ollamaToolCallId } from "./tool-calls.js";
export { mapOllamaDoneReason, normalizeOllamaUsage, OLLAMA_USAGE_FIELDS } from "./usage.js";
export type {
  OllamaChatRequest,
  OllamaMessage,
  OllamaOptions,
  OllamaTool,
  OllamaToolCall,
} from "./wire-types.js";
