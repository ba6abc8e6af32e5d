/**
 * Prompt caching and response caching.
 *
 * - Provider prompt (KV) cache: the segment model (`layoutSegments`, `PromptCacheLayout`), the
 *   canonical prompt fingerprint (`promptFingerprint`, `PrefixStream`), helpers for middleware
 *   that edit history (`replaceHistory`), and a routing key (`promptCacheKey`). The loop builds
 *   every request with `cacheSegments` and a `promptFingerprint`.
 * - Local response cache: `ResponseCache`, `InMemoryResponseCache`, `cacheKey`,
 *   `modelCacheIdentity`, `SingleFlight`; attach with `harness.withResponseCache(cache)`.
 */
export { type CacheKeyScope, cacheKey, modelCacheIdentity } from "./cache-key.js";
export { canonicalJson } from "./canonical-json.js";
export { freshMessageDigest, messageDigest, sha256Hex, toolsDigest } from "./digest.js";
export {
  copyFingerprint,
  historyOf,
  historyRange,
  type MessageRange,
  replaceHistory,
  shallowCopy,
} from "./edit-history.js";
export { InMemoryResponseCache, type InMemoryResponseCacheOptions } from "./in-memory-response-cache.js";
export { PROMPT_PREFIX_VERSION, type PrefixLine, PrefixStream } from "./prefix-stream.js";
export {
  type PrefixBreak,
  type PrefixComparison,
  PromptCacheLayout,
  promptCacheKey,
} from "./prompt-cache-layout.js";
export { type PrefixWriteResult, promptFingerprint, writePromptPrefix } from "./prompt-fingerprint.js";
export { type LaidOutSegment, layoutSegments, segmentMessages } from "./request-layout.js";
export type { ResponseCache, ResponseCacheStats } from "./response-cache.js";
export { defineLazyFingerprint, RunPrefixHasher } from "./run-prefix-hasher.js";
export { SingleFlight } from "./single-flight.js";
