import type { JsonValue } from "../json/json-value.js";
import type { AssistantMessage } from "../message/message.js";
import type { Usage } from "../usage/usage.js";
import type { ResolvedModel } from "./resolved-model.js";

/** Why the model stopped generating, normalized across providers. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error" | "other";

/** A model's answer to one call. Plain JSON data. */
export interface ModelResponse {
  message: AssistantMessage;
  usage?: Usage;
  finishReason?: FinishReason;
  /** The provider's raw response (or final stream chunk), for audit. */
  raw?: JsonValue;
  /** Which model actually served the call. Set by the harness (or a direct caller). */
  resolvedModel?: ResolvedModel;
  /** True when the response came from a local response cache, not the provider. */
  servedFromCache?: boolean;
}
