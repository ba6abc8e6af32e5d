import { classifyProviderFailure } from "../../errors/classify.js";
import { isRetryableKind } from "../../errors/provider-error.js";
import { retryAfterFromHints } from "../../http/retry-hints.js";
import type { SseEvent } from "../../http/sse.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { FinishReason } from "../../model/model-response.js";
import type { ModelStreamItem, StreamErrorItem } from "../../model/stream-item.js";
import { mapAnthropicStopReason, mergeAnthropicUsage, normalizeAnthropicUsage } from "./usage.js";

type BlockState =
  | { kind: "thinking"; signed: boolean; startSignature: string }
  | { kind: "tool"; ordinal: number; sawDelta: boolean; startInput: JsonObject | undefined }
  | { kind: "other" };

/**
 * Translates Anthropic Messages SSE events into {@link ModelStreamItem}s, one event at a time.
 * Feed every frame to {@link push}, then call {@link end} when the byte stream is over.
 *
 * - `message_start` -> `start` (id, model) and a `usage` item; a repeated `message_start` for the
 *   same message is ignored, one for a different message is an error;
 * - `content_block_start` / `content_block_delta` / `content_block_stop`, per block index:
 *   `text_delta` -> `text_delta`; `thinking_delta` -> `reasoning_delta`; `signature_delta` ->
 *   `reasoning_delta` with empty text and the signature; `redacted_thinking` blocks ->
 *   `redacted_reasoning`; `tool_use` blocks -> `tool_call_delta`s (id and name first, then each
 *   `input_json_delta.partial_json`), numbered 0, 1, ... in block order; a tool block that
 *   carried its input in `content_block_start` and had no deltas sends that input at its stop;
 * - `message_delta` -> `usage` (cumulative: each non-null field REPLACES the earlier value,
 *   so a corrected `input_tokens` wins) and the stop reason;
 * - `message_stop` -> `finish` (stop reason mapped; `raw` = the message envelope with final
 *   `stop_reason`, `stop_sequence` and `usage`);
 * - `error` -> an `error` item (code = `error.type`, retryable per `classifyProviderFailure`, so
 *   `overloaded_error` is retryable);
 * - `ping`, empty deltas, unknown events and unknown block or delta types are ignored;
 * - data that is not JSON -> a non-retryable `error` item.
 * After an `error` or `message_stop`, further frames are ignored.
 */
export class AnthropicStreamParser {
  private readonly blocks = new Map<number, BlockState>();
  private toolCount = 0;
  private messageId: string | undefined;
  private envelope: JsonObject = {};
  private usage: JsonObject | undefined;
  private stopReason: JsonValue = null;
  private stopSequence: JsonValue = null;
  private finished = false;

  /** True once `message_stop` or an `error` arrived. */
  get done(): boolean {
    return this.finished;
  }

  /** Translate one SSE frame. Returns the items it produced (often none or one). */
  push(frame: SseEvent): ModelStreamItem[] {
    if (this.finished) return [];
    let data: JsonValue;
    try {
      data = JSON.parse(frame.data) as JsonValue;
    } catch {
      return this.fail({
        type: "error",
        message: `Anthropic stream sent an event whose data is not JSON: ${frame.data.slice(0, 200)}`,
        retryable: false,
      });
    }
    if (!isJsonObject(data)) return [];
    const type = typeof data.type === "string" ? data.type : frame.event;
    switch (type) {
      case "message_start":
        return this.messageStart(data);
      case "content_block_start":
        return this.blockStart(data);
      case "content_block_delta":
        return this.blockDelta(data);
      case "content_block_stop":
        return this.blockStop(data);
      case "message_delta":
        return this.messageDelta(data);
      case "message_stop":
        this.finished = true;
        return [{ type: "finish", finishReason: this.finishReason(), raw: this.rawEnvelope() }];
      case "error":
        return this.fail(anthropicErrorEventItem(data));
      default:
        return [];
    }
  }

  /**
   * Call when the byte stream ended. Returns a retryable `error` item when neither
   * `message_stop` nor an `error` event arrived (the stream was cut), else nothing.
   */
  end(): ModelStreamItem[] {
    if (this.finished) return [];
    return this.fail({
      type: "error",
      message:
        "Anthropic stream ended before message_stop (the connection was cut or a proxy timed out); the answer is incomplete, retry the call",
      retryable: true,
    });
  }

  private fail(item: StreamErrorItem): ModelStreamItem[] {
    this.finished = true;
    item.provider ??= "anthropic";
    return [item];
  }

  private messageStart(data: JsonObject): ModelStreamItem[] {
    const message = isJsonObject(data.message) ? data.message : {};
    const id = typeof message.id === "string" ? message.id : undefined;
    if (this.messageId !== undefined) {
      if (id === this.messageId) return [];
      return this.fail({
        type: "error",
        message: `Anthropic stream started a second message (${String(id)}) while ${this.messageId} was open`,
        retryable: true,
      });
    }
    this.messageId = id ?? "";
    const { content: _content, usage, ...envelope } = message;
    this.envelope = envelope;
    const items: ModelStreamItem[] = [];
    const start: ModelStreamItem = { type: "start" };
    if (id !== undefined) start.id = id;
    if (typeof message.model === "string") start.model = message.model;
    items.push(start);
    if (isJsonObject(usage)) {
      this.usage = mergeAnthropicUsage(undefined, usage);
      items.push({ type: "usage", usage: normalizeAnthropicUsage(this.usage) });
    }
    return items;
  }

  private blockStart(data: JsonObject): ModelStreamItem[] {
    const index = typeof data.index === "number" ? data.index : -1;
    const block = isJsonObject(data.content_block) ? data.content_block : {};
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "other" });
        return typeof block.text === "string" && block.text !== ""
          ? [{ type: "text_delta", text: block.text }]
          : [];
      case "thinking": {
        const signature = typeof block.signature === "string" ? block.signature : "";
        this.blocks.set(index, { kind: "thinking", signed: false, startSignature: signature });
        return typeof block.thinking === "string" && block.thinking !== ""
          ? [{ type: "reasoning_delta", text: block.thinking }]
          : [];
      }
      case "redacted_thinking":
        this.blocks.set(index, { kind: "other" });
        return [{ type: "redacted_reasoning", data: typeof block.data === "string" ? block.data : "" }];
      case "tool_use": {
        const ordinal = this.toolCount++;
        const input =
          isJsonObject(block.input) && Object.keys(block.input).length > 0 ? block.input : undefined;
        this.blocks.set(index, { kind: "tool", ordinal, sawDelta: false, startInput: input });
        return [
          {
            type: "tool_call_delta",
            index: ordinal,
            id: typeof block.id === "string" ? block.id : "",
            name: typeof block.name === "string" ? block.name : "",
          },
        ];
      }
      default:
        this.blocks.set(index, { kind: "other" });
        return [];
    }
  }

  private blockDelta(data: JsonObject): ModelStreamItem[] {
    const delta = isJsonObject(data.delta) ? data.delta : {};
    const state = this.blocks.get(typeof data.index === "number" ? data.index : -1);
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" && delta.text !== ""
          ? [{ type: "text_delta", text: delta.text }]
          : [];
      case "thinking_delta":
        return typeof delta.thinking === "string" && delta.thinking !== ""
          ? [{ type: "reasoning_delta", text: delta.thinking }]
          : [];
      case "signature_delta":
        if (typeof delta.signature !== "string" || delta.signature === "") return [];
        if (state?.kind === "thinking") state.signed = true;
        return [{ type: "reasoning_delta", text: "", signature: delta.signature }];
      case "input_json_delta": {
        if (state?.kind !== "tool" || typeof delta.partial_json !== "string" || delta.partial_json === "")
          return [];
        state.sawDelta = true;
        return [{ type: "tool_call_delta", index: state.ordinal, argumentsDelta: delta.partial_json }];
      }
      default:
        return [];
    }
  }

  private blockStop(data: JsonObject): ModelStreamItem[] {
    const state = this.blocks.get(typeof data.index === "number" ? data.index : -1);
    if (state?.kind === "thinking" && !state.signed && state.startSignature !== "") {
      return [{ type: "reasoning_delta", text: "", signature: state.startSignature }];
    }
    if (state?.kind === "tool" && !state.sawDelta && state.startInput !== undefined) {
      return [
        { type: "tool_call_delta", index: state.ordinal, argumentsDelta: JSON.stringify(state.startInput) },
      ];
    }
    return [];
  }

  private messageDelta(data: JsonObject): ModelStreamItem[] {
    if (isJsonObject(data.delta)) {
      if (data.delta.stop_reason !== undefined) this.stopReason = data.delta.stop_reason;
      if (data.delta.stop_sequence !== undefined) this.stopSequence = data.delta.stop_sequence;
    }
    if (!isJsonObject(data.usage)) return [];
    this.usage = mergeAnthropicUsage(this.usage, data.usage);
    return [{ type: "usage", usage: normalizeAnthropicUsage(this.usage) }];
  }

  private finishReason(): FinishReason {
    return mapAnthropicStopReason(this.stopReason);
  }

  private rawEnvelope(): JsonObject {
    const raw: JsonObject = {
      ...this.envelope,
      stop_reason: this.stopReason,
      stop_sequence: this.stopSequence,
    };
    if (this.usage !== undefined) raw.usage = this.usage;
    return raw;
  }
}

/** The `error` item for an in-stream `{"type":"error","error":{type,message}}` event. */
export function anthropicErrorEventItem(data: JsonObject): StreamErrorItem {
  const error = isJsonObject(data.error) ? data.error : {};
  const code = typeof error.type === "string" ? error.type : undefined;
  const message =
    typeof error.message === "string" && error.message !== ""
      ? `Anthropic stream error${code === undefined ? "" : ` (${code})`}: ${error.message}`
      : `Anthropic stream error${code === undefined ? "" : ` (${code})`}`;
  const kind = classifyProviderFailure({ code, message });
  const item: StreamErrorItem = {
    type: "error",
    message,
    retryable: isRetryableKind(kind),
    kind,
    provider: "anthropic",
  };
  if (code !== undefined) item.providerCode = code;
  // A rate_limit_error event may say how long to wait ("try again in 1.5s"): keep it for retry.
  const retryAfterMs =
    typeof error.message === "string"
      ? retryAfterFromHints(new Headers(), error.message, Date.now())
      : undefined;
  if (retryAfterMs !== undefined) item.retryAfterMs = retryAfterMs;
  return item;
}
