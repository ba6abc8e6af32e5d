import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { FinishReason } from "../../model/model-response.js";
import { type Usage, usage } from "../../usage/usage.js";

/**
 * Normalize an Anthropic `usage` object. Anthropic's `input_tokens` counts only the tokens after
 * the last cache hit or write, with `cache_creation_input_tokens` and `cache_read_input_tokens`
 * beside it, so:
 * - `inputTokens` = input_tokens + cache_creation_input_tokens + cache_read_input_tokens;
 * - `cacheWriteTokens` = cache_creation_input_tokens; `cacheReadTokens` = cache_read_input_tokens;
 * - `outputTokens` = output_tokens (thinking included); `reasoningTokens` =
 *   `output_tokens_details.thinking_tokens` when reported, else 0;
 * - `raw` = the usage object as given. Missing or `null` counters read as 0.
 */
export function normalizeAnthropicUsage(raw: JsonObject): Usage {
  const input = count(raw.input_tokens);
  const cacheWrite = count(raw.cache_creation_input_tokens);
  const cacheRead = count(raw.cache_read_input_tokens);
  const details = raw.output_tokens_details;
  return usage({
    inputTokens: input + cacheWrite + cacheRead,
    outputTokens: count(raw.output_tokens),
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: isJsonObject(details) ? count(details.thinking_tokens) : 0,
    raw,
  });
}

/**
 * Fold a later cumulative usage object (`message_delta.usage`) into an earlier one
 * (`message_start.message.usage`): every non-null field of `next` REPLACES the earlier value
 * (Anthropic stream usage is cumulative, never summed); fields `next` omits or sends as `null`
 * keep their earlier value. Returns a new object.
 */
export function mergeAnthropicUsage(previous: JsonObject | undefined, next: JsonObject): JsonObject {
  const merged: JsonObject = { ...previous };
  for (const [key, value] of Object.entries(next)) if (value !== null) merged[key] = value;
  return merged;
}

/**
 * Map Anthropic's `stop_reason`: `end_turn`, `stop_sequence` -> `stop`; `max_tokens`,
 * `model_context_window_exceeded` -> `length`; `tool_use` -> `tool_calls`; `refusal` ->
 * `content_filter`; anything else (`pause_turn`, unknown, missing) -> `other`.
 */
export function mapAnthropicStopReason(reason: JsonValue | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool_calls";
    case "refusal":
      return "content_filter";
    default:
      return "other";
  }
}

function count(value: JsonValue | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
