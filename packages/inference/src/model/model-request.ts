import type { JsonObject, JsonValue } from "../json/json-value.js";
import type { Message } from "../message/message.js";
import type { ToolChoice } from "../tool/tool-choice.js";
import type { ToolSchema } from "../tool/tool-schema.js";
import type { CapabilitySet } from "./model-profile.js";

/** What shape the model's final answer must have. */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | {
      type: "json_schema";
      name: string;
      schema: JsonObject;
      description?: string;
      /** Ask the provider to enforce the schema strictly (default true). */
      strict?: boolean;
    };

/** A soft preference for a registered model; higher priority wins. */
export interface ModelHint {
  model: string;
  priority: number;
  reason?: string;
}

/** Per-call retry overrides (the harness's RetryPolicy supplies the defaults). */
export interface RequestRetryPolicy {
  maxRetries?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Local response cache policy for this call (distinct from the provider's prompt cache). */
export interface ResponseCachePolicy {
  enabled: boolean;
  ttlMs?: number;
}

/** Provider prompt-cache (KV-cache) hints. */
export interface PromptCachePolicy {
  /** Mark cache breakpoints / send cache keys where the provider supports it. */
  enabled: boolean;
  /** Stable routing key for providers that accept one (OpenAI `prompt_cache_key`). */
  key?: string;
  /** Provider retention hint. */
  retention?: "short" | "long";
}

/** Role of a prompt segment in the cache layout. */
export type CacheSegmentRole = "system" | "tools" | "instructions" | "history" | "volatile";

/**
 * One named, ordered slice of the request's messages. Segments tile `messages` in order:
 * the first `messageCount` messages belong to the first segment, and so on. Cacheable segments
 * must come before volatile ones so the provider's prefix cache can reuse them.
 */
export interface CacheSegment {
  id: string;
  role: CacheSegmentRole;
  cacheable: boolean;
  messageCount: number;
  /**
   * How long the provider should keep this segment's cache entry (the breakpoint at its end):
   * `"5m"` (the default) or `"1h"`. Lets a stable system prompt live an hour while the growing
   * history is cached for five minutes (Anthropic `cache_control.ttl`; an hour costs 2x on write,
   * five minutes 1.25x). Unset: `promptCache.retention === "long"` means `"1h"`, else `"5m"`.
   * Anthropic requires `"1h"` breakpoints before `"5m"` ones.
   */
  ttl?: CacheTtl;
}

/** A provider prompt-cache lifetime. */
export type CacheTtl = "5m" | "1h";

/** Reasoning ("thinking") settings for models that support them. */
export interface ReasoningSettings {
  effort?: "minimal" | "low" | "medium" | "high";
  budgetTokens?: number;
  summary?: "auto" | "concise" | "detailed";
}

/**
 * Everything a provider-neutral model call can say. Plain JSON data.
 *
 * Only `messages` is required. Adapters map each field to their wire format and ignore what
 * the provider cannot express; `providerOptions` is merged into the wire body last, except that
 * explicit request fields win over it.
 */
export interface ModelRequest {
  messages: Message[];
  tools?: ToolSchema[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  responseFormat?: ResponseFormat;
  /** Registry name overriding model resolution for this call. */
  model?: string;
  modelHints?: ModelHint[];
  /** Reuse the model that served the previous call of this run/state, when still registered. */
  reusePreviousModel?: boolean;
  requiredCapabilities?: CapabilitySet;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /**
   * Bound on the whole call in ms (headers and body); a `timeout` error (`details.limit:
   * "model_call_timeout"`) when it passes. The HTTP adapters default to their `timeoutMs` option
   * (`DEFAULT_CALL_TIMEOUT_MS`, 10 min); `0` removes the bound.
   */
  timeoutMs?: number;
  /**
   * Wait for the response headers of a streamed call in ms; a `timeout` error (`details.limit:
   * "headers_timeout"`) when they do not arrive. Overrides the adapter's `headersTimeoutMs`
   * option (default `DEFAULT_HEADERS_TIMEOUT_MS`, 60 s); `0` removes it.
   */
  headersTimeoutMs?: number;
  /**
   * Stream idle timeout in ms for this call: a streamed response body that makes no progress (no
   * event or line with data; keep-alives and trickled bytes do not count) for this long fails with a `timeout` error (`details.limit: "stream_idle_timeout"`). Overrides the
   * adapter's `streamIdleTimeoutMs` option (default 240_000); `0` disables it.
   */
  streamIdleTimeoutMs?: number;
  retry?: RequestRetryPolicy;
  responseCache?: ResponseCachePolicy;
  promptCache?: PromptCachePolicy;
  cacheSegments?: CacheSegment[];
  /** Hash of the canonical serialization of the cacheable prefix (messages and tool schemas). */
  promptFingerprint?: string;
  tags?: string[];
  metadata?: JsonObject;
  providerOptions?: { [key: string]: JsonValue };
  reasoning?: ReasoningSettings;
}
