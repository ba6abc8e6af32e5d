/**
 * `@tinyagents/harness/tool-calling`: prompt-guided tool calling, for models without native tool
 * calls: the tool instructions, parsing the calls out of the text, and a model wrapper that falls
 * back to it.
 */
export { type CoalescedTranscript, coalescePromptToolTurns } from "./coalesce-tool-turns.js";
export { toPromptGuidedRequest } from "./prompt-guided-request.js";
export {
  applyPromptToolCalls,
  type PromptToolParseOptions,
  promptGuidedStream,
} from "./prompt-guided-response.js";
export {
  PromptGuidedToolsModel,
  type PromptGuidedToolsOptions,
  withPromptToolsFallback,
} from "./prompt-guided-tools-model.js";
export { promptToolInstructions, withPromptToolInstructions } from "./prompt-tool-instructions.js";
export { isToolsUnsupportedError } from "./tools-rejection.js";
