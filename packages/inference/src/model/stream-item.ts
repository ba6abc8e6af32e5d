import type { ProviderFailureKind } from "../errors/provider-error.js";
import type { JsonValue } from "../json/json-value.js";
import type { Usage } from "../usage/usage.js";
import type { FinishReason } from "./model-response.js";

/** The stream opened; the provider may say which model and message id. */
export interface StreamStartItem {
  type: "start";
  model?: string;
  id?: string;
}

/** A piece of answer text. */
export interface TextDeltaItem {
  type: "text_delta";
  text: string;
}

/** A piece of reasoning text, or (with empty text) the reasoning block's signature. */
export interface ReasoningDeltaItem {
  type: "reasoning_delta";
  text: string;
  signature?: string;
}

/** An encrypted reasoning block, delivered whole. */
export interface RedactedReasoningItem {
  type: "redacted_reasoning";
  data: string;
}

/**
 * A fragment of a tool call. Fragments with the same `index` belong to the same call; `id` and
 * `name` usually arrive on the first fragment, `argumentsDelta` pieces concatenate to JSON text.
 */
export interface ToolCallDeltaItem {
  type: "tool_call_delta";
  index: number;
  id?: string;
  name?: string;
  argumentsDelta?: string;
}

/** Usage for the call (may arrive once at the end, or cumulatively; the last one wins). */
export interface UsageItem {
  type: "usage";
  usage: Usage;
}

/** The model finished. */
export interface FinishItem {
  type: "finish";
  finishReason: FinishReason;
  raw?: JsonValue;
}

/**
 * The provider reported an error mid-stream. Consumers turn it into a thrown ProviderError that
 * keeps every fact given here: an adapter that classified the failure sets `kind` (and
 * `retryAfterMs` when the provider said how long to wait), so a 429 inside a stream retries as
 * the provider asked, exactly like a 429 status would.
 */
export interface StreamErrorItem {
  type: "error";
  message: string;
  status?: number;
  providerCode?: string;
  retryable: boolean;
  /** The failure's classification; when absent it is derived from status, code and message. */
  kind?: ProviderFailureKind;
  /** Milliseconds the provider asked to wait before retrying. */
  retryAfterMs?: number;
  /** The provider that reported it (the consumer's own provider name is used otherwise). */
  provider?: string;
}

/** One item of a model stream. Plain JSON data; a discriminated union on `type`. */
export type ModelStreamItem =
  | StreamStartItem
  | TextDeltaItem
  | ReasoningDeltaItem
  | RedactedReasoningItem
  | ToolCallDeltaItem
  | UsageItem
  | FinishItem
  | StreamErrorItem;

/** The items that carry message content: what streaming middleware and `model.*_delta` events carry. */
export type MessageDelta = TextDeltaItem | ReasoningDeltaItem | RedactedReasoningItem | ToolCallDeltaItem;

/** True for items that carry message content. */
export function isMessageDelta(item: ModelStreamItem): item is MessageDelta {
  return (
    item.type === "text_delta" ||
    item.type === "reasoning_delta" ||
    item.type === "redacted_reasoning" ||
    item.type === "tool_call_delta"
  );
}
