/**
 * Prompt templates and the cache-aware request builder: `PromptTemplate` (`{{var}}`),
 * `MessagesTemplate` (ordered conversations) and `PromptBuilder` (named, ordered segments with
 * cache flags and a prompt fingerprint).
 */
export { MessagesTemplate, type MessagesTemplateEntry } from "./messages-template.js";
export { PromptBuilder, type SegmentContent, type SegmentOptions } from "./prompt-builder.js";
export {
  checkVars,
  PromptTemplate,
  type PromptTemplateOptions,
  type TemplateRole,
  type TemplateVars,
} from "./prompt-template.js";
