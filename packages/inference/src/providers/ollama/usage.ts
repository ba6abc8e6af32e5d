import type { JsonObject, JsonValue } from "../../json/json-value.js";
import type { FinishReason } from "../../model/model-response.js";
import { type Usage, usage } from "../../usage/usage.js";

/** The counters of a final (`done: true`) Ollama object that are kept in `usage.raw`. */
export const OLLAMA_USAGE_FIELDS = [
  "prompt_eval_count",
  "eval_count",
  "total_duration",
  "load_duration",
  "prompt_eval_duration",
  "eval_duration",
] as const;

/**
 * Normalize the counters of a final Ollama object: `inputTokens` = `prompt_eval_count`,
 * `outputTokens` = `eval_count` (thinking included). Ollama omits zero counters, so a missing
 * `prompt_eval_count` (the whole prompt came from its KV cache) reads as 0; it reports no cache
 * or reasoning split, so those are 0. `raw` keeps the counters and the durations (nanoseconds)
 * that were present.
 */
export function normalizeOllamaUsage(final: JsonObject): Usage {
  const raw: JsonObject = {};
  for (const field of OLLAMA_USAGE_FIELDS) {
    const value = final[field];
    if (typeof value === "number") raw[field] = value;
  }
  return usage({
    inputTokens: count(final.prompt_eval_count),
    outputTokens: count(final.eval_count),
    raw,
  });
}

/**
 * Map `done_reason`. The native API says `stop` even when the model called tools, so any call
 * makes it `tool_calls`; `length` -> `length`; `stop` (or missing) -> `stop`; `load`, `unload`
 * and unknown values -> `other`.
 */
export function mapOllamaDoneReason(reason: JsonValue | undefined, hasToolCalls: boolean): FinishReason {
  if (hasToolCalls) return "tool_calls";
  if (reason === "length") return "length";
  if (reason === "stop" || reason === undefined || reason === null || reason === "") return "stop";
  return "other";
}

function count(value: JsonValue | undefined): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
