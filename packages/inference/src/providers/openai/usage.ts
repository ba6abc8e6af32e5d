import { isJsonObject, type JsonObject } from "../../json/json-value.js";
import type { Usage } from "../../usage/usage.js";

/**
 * Normalize an OpenAI-style usage object (the rule on `Usage`: input includes cached tokens,
 * output includes reasoning tokens):
 * - `prompt_tokens` -> `inputTokens`; `completion_tokens` -> `outputTokens`;
 * - `prompt_tokens_details.cached_tokens` (else DeepSeek's `prompt_cache_hit_tokens`) ->
 *   `cacheReadTokens`; `prompt_tokens_details.cache_write_tokens` / `cache_creation_tokens`
 *   (the larger) -> `cacheWriteTokens`;
 * - `completion_tokens_details.reasoning_tokens` -> `reasoningTokens`;
 * - when `completion_tokens` EXCLUDES reasoning (xAI: `total = prompt + completion + reasoning`,
 *   or `excludesReasoning`), the reasoning tokens are added to `outputTokens`;
 * - `totalTokens` = `total_tokens` when reported (and consistent), else input + output;
 * - `raw` keeps the object as received.
 * Returns `undefined` when the object has no token counts at all.
 */
export function normalizeOpenAiUsage(raw: JsonObject, excludesReasoning = false): Usage | undefined {
  const prompt = count(raw.prompt_tokens) ?? count(raw.input_tokens);
  const completion = count(raw.completion_tokens) ?? count(raw.output_tokens);
  if (prompt === undefined && completion === undefined) return undefined;
  const inputTokens = prompt ?? 0;
  let outputTokens = completion ?? 0;
  const promptDetails = isJsonObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  const completionDetails = isJsonObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  const cacheReadTokens = count(promptDetails.cached_tokens) ?? count(raw.prompt_cache_hit_tokens) ?? 0;
  const cacheWriteTokens = Math.max(
    count(promptDetails.cache_write_tokens) ?? 0,
    count(promptDetails.cache_creation_tokens) ?? 0,
  );
  const reasoningTokens = count(completionDetails.reasoning_tokens) ?? 0;
  const total = count(raw.total_tokens);
  if (
    reasoningTokens > 0 &&
    (excludesReasoning ||
      (total !== undefined &&
        total === inputTokens + outputTokens + reasoningTokens &&
        total !== inputTokens + outputTokens))
  ) {
    outputTokens += reasoningTokens;
  }
  const totalTokens =
    total !== undefined && total >= inputTokens + outputTokens ? total : inputTokens + outputTokens;
  return { inputTokens, outputTokens, totalTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens, raw };
}

/**
 * Usage from llama.cpp's non-standard `timings` object, for servers that send timings but no
 * `usage`: input = `prompt_n` (tokens evaluated) + `cache_n` (tokens reused from the KV cache,
 * also reported as `cacheReadTokens`), output = `predicted_n`.
 */
export function usageFromTimings(timings: JsonObject): Usage | undefined {
  const prompt = count(timings.prompt_n);
  const predicted = count(timings.predicted_n);
  if (prompt === undefined && predicted === undefined) return undefined;
  const cached = count(timings.cache_n) ?? 0;
  const inputTokens = (prompt ?? 0) + cached;
  const outputTokens = predicted ?? 0;
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    raw: timings,
  };
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
