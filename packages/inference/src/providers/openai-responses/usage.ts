import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { FinishReason } from "../../model/model-response.js";
import type { Usage } from "../../usage/usage.js";

/**
 * Normalize a Responses API `usage` object (input already includes cached tokens, output
 * already includes reasoning tokens, as `Usage` wants):
 * `input_tokens` -> `inputTokens`; `input_tokens_details.cached_tokens` -> `cacheReadTokens`;
 * `input_tokens_details.cache_write_tokens` -> `cacheWriteTokens`; `output_tokens` ->
 * `outputTokens`; `output_tokens_details.reasoning_tokens` -> `reasoningTokens`; `total_tokens`
 * when consistent, else input + output; `raw` = the object. `undefined` without token counts.
 */
export function normalizeResponsesUsage(raw: JsonValue | undefined): Usage | undefined {
  if (!isJsonObject(raw)) return undefined;
  const input = count(raw.input_tokens);
  const output = count(raw.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const inputDetails: JsonObject = isJsonObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails: JsonObject = isJsonObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const inputTokens = input ?? 0;
  const outputTokens = output ?? 0;
  const total = count(raw.total_tokens);
  return {
    inputTokens,
    outputTokens,
    totalTokens:
      total !== undefined && total >= inputTokens + outputTokens ? total : inputTokens + outputTokens,
    cacheReadTokens: count(inputDetails.cached_tokens) ?? 0,
    cacheWriteTokens: count(inputDetails.cache_write_tokens) ?? 0,
    reasoningTokens: count(outputDetails.reasoning_tokens) ?? 0,
    raw,
  };
}

/**
 * The neutral finish reason of a finished response: `incomplete` with
 * `incomplete_details.reason` `max_output_tokens` -> `length`, `content_filter` ->
 * `content_filter`; `failed` -> `error`; a completed response that called functions ->
 * `tool_calls`, one that refused -> `content_filter`, else `stop`.
 */
export function responsesFinishReason(
  response: JsonObject,
  facts: { calledTools: boolean; refused: boolean },
): FinishReason {
  if (response.status === "incomplete") {
    const reason = isJsonObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    if (reason === "max_output_tokens") return "length";
    if (reason === "content_filter") return "content_filter";
    return "other";
  }
  if (response.status === "failed") return "error";
  if (facts.calledTools) return "tool_calls";
  if (facts.refused) return "content_filter";
  return "stop";
}

function count(value: JsonValue | undefined): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
