import type { FinishReason } from "../../model/model-response.js";

/**
 * Map a Chat Completions `finish_reason` to the neutral one: `stop` (also `end_turn`,
 * `stop_sequence`, `eos`), `length` (also `max_tokens`, `model_length`), `tool_calls` (also
 * `function_call`, `tool_use`), `content_filter` (also `safety`, `refusal`),
 * `error` (DeepSeek `insufficient_system_resource`, `error`); anything else is `other`.
 */
export function mapFinishReason(reason: string): FinishReason {
  switch (reason) {
    case "stop":
    case "end_turn":
    case "stop_sequence":
    case "eos":
      return "stop";
    case "length":
    case "max_tokens":
    case "model_length":
      return "length";
    case "tool_calls":
    case "function_call":
    case "tool_use":
      return "tool_calls";
    case "content_filter":
    case "safety":
    case "refusal":
      return "content_filter";
    case "insufficient_system_resource":
    case "error":
      return "error";
    default:
      return "other";
  }
}
