export { ARGUMENT_KEYS, readArguments } from "./call-from-json.js";
export { extractJsonValues, parseJsonLoose } from "./json-values.js";
export { ToolCallMarkupScrubber } from "./markup-scrubber.js";
export { parseToolCallsFromText } from "./parse-tool-calls.js";
export type {
  ParsedToolCall,
  ParseToolCallsOptions,
  ParseToolCallsResult,
  ToolCallDialect,
} from "./parsed-tool-call.js";
