/**
 * Trimming, summarization and compression of conversations, with provenance: every compression
 * records which messages it removed or shortened (by `messageId`), the token estimates before
 * and after, the cache segments it touched and why, and emits `context.compressed`.
 */
export {
  type CompressionKind,
  CompressionLog,
  type CompressionProvenance,
  type SummaryRecord,
} from "../events/compression-record.js";
export {
  DEFAULT_SUMMARY_INSTRUCTIONS,
  LlmSummarizer,
  type LlmSummarizerOptions,
  type SummaryModelCall,
} from "./llm-summarizer.js";
export { messageId, messageIds } from "./message-ids.js";
export { findOrphans, type MessageUnit, messageUnits } from "./message-units.js";
export {
  type CompressionFailurePolicy,
  type ContextCompressionMiddleware,
  type ContextCompressionOptions,
  contextCompressionMiddleware,
} from "./middleware/context-compression-middleware.js";
export {
  type MessageTrimMiddleware,
  type MessageTrimOptions,
  messageTrimMiddleware,
} from "./middleware/message-trim-middleware.js";
export {
  type MicrocompactMiddleware,
  type MicrocompactOptions,
  microcompactMiddleware,
} from "./middleware/microcompact-middleware.js";
export {
  type OutputCompressionMiddleware,
  type OutputCompressionOptions,
  outputCompressionMiddleware,
} from "./middleware/output-compression-middleware.js";
export { type CompressionFacts, recordCompression } from "./middleware/record-compression.js";
export {
  headAndTail,
  type RetrievedContextCompressionMiddleware,
  type RetrievedContextCompressionOptions,
  retrievedContextCompressionMiddleware,
  type TextCompressor,
} from "./middleware/retrieved-context-compression-middleware.js";
export {
  planSummarization,
  type SummarizationPlan,
  type SummarizationPolicy,
  type SummarizationPolicyInput,
  shouldSummarize,
  summarizationPolicy,
  summarizationPolicyFromProfile,
  triggerBudget,
} from "./summarization-policy.js";
export {
  ConcatSummarizer,
  type ConcatSummarizerOptions,
  type SummarizeContext,
  type Summarizer,
} from "./summarizer.js";
export { messagesTokens, messageTokens } from "./token-estimates.js";
export {
  planTrim,
  type TrimOptions,
  type TrimPlan,
  type TrimStrategy,
  trimMessages,
} from "./trim-messages.js";
