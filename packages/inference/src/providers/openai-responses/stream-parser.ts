import { factsFromObject } from "../../http/error-body.js";
import { providerErrorFromFacts } from "../../http/provider-error-from-response.js";
import type { SseEvent } from "../../http/sse.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import { encodeReasoningSignature, type ResponsesReasoningState } from "../../message/reasoning-signature.js";
import { streamErrorItem } from "../../model/stream-accumulator.js";
import type { ModelStreamItem, StreamErrorItem } from "../../model/stream-item.js";
import { followingItemOf, messageItemText, reasoningItemText } from "./output-items.js";
import { failedResponseError, type ResponsesParseContext } from "./parse-response.js";
import { normalizeResponsesUsage, responsesFinishReason } from "./usage.js";

type ItemState =
  | { kind: "reasoning"; id: string; part: string | undefined; sawText: boolean }
  | { kind: "message"; sawText: boolean }
  | { kind: "call"; ordinal: number; sawArguments: boolean }
  | { kind: "other" };

/**
 * Translates Responses API SSE events into {@link ModelStreamItem}s, one frame at a time (feed
 * every frame to {@link push}, call {@link end} when the bytes are over). The items accumulate
 * into the same response `parseResponsesBody` gives for the final `response` object:
 * - `response.created` (else the first event carrying a `response`) -> `start` (id, model);
 * - `response.output_text.delta`, `response.refusal.delta` -> `text_delta`;
 * - `response.reasoning_summary_text.delta`, `response.reasoning_text.delta` ->
 *   `reasoning_delta` (parts of one item separated by a blank line); a reasoning item's
 *   signature (id, `encrypted_content` from `response.output_item.done`, and the id of the item
 *   after it) is sent as an empty `reasoning_delta` when the next item is added or the response
 *   ends;
 * - `response.output_item.added` of a `function_call` -> `tool_call_delta` (call id, name),
 *   numbered 0, 1, ... in output order; `response.function_call_arguments.delta` -> argument
 *   fragments;
 * - an item's `done` event sends what no delta carried (a proxy that only sends whole items);
 * - `response.completed` / `response.incomplete` -> `usage` and `finish` (raw = the response);
 * - `response.failed` and `error` events -> a classified `error` item (kind, retryability,
 *   retry-after from "try again in ..." phrases, provider, code);
 * - data that is not JSON -> a non-retryable `error` item; unknown events are ignored.
 * After an error or a terminal event, further frames are ignored.
 */
export class ResponsesStreamParser {
  private readonly items = new Map<number, ItemState>();
  private pending: ResponsesReasoningState | undefined;
  private started = false;
  private calls = 0;
  private refused = false;
  private finished = false;

  constructor(private readonly context: ResponsesParseContext) {}

  /** True once a terminal event or an error arrived. */
  get done(): boolean {
    return this.finished;
  }

  /** Translate one SSE frame. */
  push(frame: SseEvent): ModelStreamItem[] {
    if (this.finished) return [];
    let data: JsonValue;
    try {
      data = JSON.parse(frame.data) as JsonValue;
    } catch {
      return this.fail({
        type: "error",
        message: `${this.context.provider}: the Responses stream sent an event whose data is not JSON: ${frame.data.slice(0, 200)}`,
        retryable: false,
      });
    }
    if (!isJsonObject(data)) return [];
    const type = typeof data.type === "string" ? data.type : frame.event;
    const out: ModelStreamItem[] = [];
    if (!this.started && isJsonObject(data.response)) this.start(data.response, out);
    switch (type) {
      case "response.output_item.added":
        this.itemAdded(data, out);
        break;
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.textDelta(data, type === "response.refusal.delta", out);
        break;
      case "response.reasoning_summary_text.delta":
        this.reasoningDelta(data, `s${String(data.summary_index ?? 0)}`, out);
        break;
      case "response.reasoning_text.delta":
        this.reasoningDelta(data, `c${String(data.content_index ?? 0)}`, out);
        break;
      case "response.function_call_arguments.delta":
        this.argumentsDelta(data, out);
        break;
      case "response.function_call_arguments.done":
        this.argumentsDone(data, typeof data.arguments === "string" ? data.arguments : "", out);
        break;
      case "response.output_item.done":
        this.itemDone(data, out);
        break;
      case "response.completed":
      case "response.incomplete":
        this.complete(isJsonObject(data.response) ? data.response : {}, out);
        break;
      case "response.failed":
        return [
          ...out,
          ...this.fail(
            streamErrorItem(
              failedResponseError(isJsonObject(data.response) ? data.response : {}, this.context),
            ),
          ),
        ];
      case "error":
        return [...out, ...this.fail(this.errorEventItem(data))];
    }
    return out;
  }

  /** Call when the bytes ended: a retryable error when no terminal event arrived. */
  end(): ModelStreamItem[] {
    if (this.finished) return [];
    return this.fail({
      type: "error",
      message: `${this.context.provider}: the Responses stream ended before response.completed (the connection was cut or a proxy timed out); the answer is incomplete, retry the call`,
      retryable: true,
      kind: "retryable",
      providerCode: "stream_truncated",
    });
  }

  private start(response: JsonObject, out: ModelStreamItem[]): void {
    this.started = true;
    const start: ModelStreamItem = { type: "start" };
    if (typeof response.id === "string") start.id = response.id;
    if (typeof response.model === "string") start.model = response.model;
    out.push(start);
  }

  private itemAdded(data: JsonObject, out: ModelStreamItem[]): void {
    const item = isJsonObject(data.item) ? data.item : {};
    const index = outputIndex(data);
    this.flushReasoning(followingItemOf(item), out);
    switch (item.type) {
      case "reasoning":
        this.items.set(index, {
          kind: "reasoning",
          id: typeof item.id === "string" ? item.id : "",
          part: undefined,
          sawText: false,
        });
        return;
      case "message":
        this.items.set(index, { kind: "message", sawText: false });
        return;
      case "function_call": {
        const ordinal = this.calls++;
        this.items.set(index, { kind: "call", ordinal, sawArguments: false });
        out.push({
          type: "tool_call_delta",
          index: ordinal,
          id: typeof item.call_id === "string" ? item.call_id : "",
          name: typeof item.name === "string" ? item.name : "",
        });
        if (typeof item.arguments === "string" && item.arguments !== "") {
          this.argumentsDone(data, item.arguments, out);
        }
        return;
      }
      default:
        this.items.set(index, { kind: "other" });
    }
  }

  private textDelta(data: JsonObject, refusal: boolean, out: ModelStreamItem[]): void {
    if (refusal) this.refused = true;
    const state = this.items.get(outputIndex(data));
    if (state?.kind === "message") state.sawText = true;
    if (typeof data.delta === "string" && data.delta !== "")
      out.push({ type: "text_delta", text: data.delta });
  }

  private reasoningDelta(data: JsonObject, part: string, out: ModelStreamItem[]): void {
    const state = this.items.get(outputIndex(data));
    if (typeof data.delta !== "string" || data.delta === "") return;
    let text = data.delta;
    if (state?.kind === "reasoning") {
      if (state.part !== undefined && state.part !== part) text = `\n\n${text}`;
      state.part = part;
      state.sawText = true;
    }
    out.push({ type: "reasoning_delta", text });
  }

  private argumentsDelta(data: JsonObject, out: ModelStreamItem[]): void {
    const state = this.items.get(outputIndex(data));
    if (state?.kind !== "call" || typeof data.delta !== "string" || data.delta === "") return;
    state.sawArguments = true;
    out.push({ type: "tool_call_delta", index: state.ordinal, argumentsDelta: data.delta });
  }

  /** Whole arguments from a `done` event: sent only when no delta carried them. */
  private argumentsDone(data: JsonObject, args: string, out: ModelStreamItem[]): void {
    const state = this.items.get(outputIndex(data));
    if (state?.kind !== "call" || state.sawArguments || args === "") return;
    state.sawArguments = true;
    out.push({ type: "tool_call_delta", index: state.ordinal, argumentsDelta: args });
  }

  private itemDone(data: JsonObject, out: ModelStreamItem[]): void {
    const item = isJsonObject(data.item) ? data.item : {};
    const state = this.items.get(outputIndex(data));
    if (state?.kind === "reasoning" || (state === undefined && item.type === "reasoning")) {
      if (state?.kind === "reasoning" && !state.sawText) {
        const text = reasoningItemText(item);
        if (text !== "") out.push({ type: "reasoning_delta", text });
      }
      const id = typeof item.id === "string" ? item.id : state?.kind === "reasoning" ? state.id : "";
      this.pending = { id };
      if (typeof item.encrypted_content === "string") this.pending.encryptedContent = item.encrypted_content;
    } else if (state?.kind === "message" && !state.sawText) {
      const { text, refused } = messageItemText(item);
      this.refused ||= refused;
      if (text !== "") out.push({ type: "text_delta", text });
      state.sawText = true;
    } else if (state?.kind === "call") {
      this.argumentsDone(data, typeof item.arguments === "string" ? item.arguments : "", out);
    }
  }

  private complete(response: JsonObject, out: ModelStreamItem[]): void {
    this.flushReasoning(undefined, out);
    this.finished = true;
    const usage = normalizeResponsesUsage(response.usage);
    if (usage !== undefined) out.push({ type: "usage", usage });
    out.push({
      type: "finish",
      finishReason: responsesFinishReason(response, { calledTools: this.calls > 0, refused: this.refused }),
      raw: response,
    });
  }

  /** Send the signature of a finished reasoning item, pointing at the item after it. */
  private flushReasoning(following: ResponsesReasoningState["following"], out: ModelStreamItem[]): void {
    const pending = this.pending;
    if (pending === undefined) return;
    this.pending = undefined;
    if (following !== undefined) pending.following = following;
    out.push({ type: "reasoning_delta", text: "", signature: encodeReasoningSignature(pending) });
  }

  private errorEventItem(data: JsonObject): StreamErrorItem {
    const facts = factsFromObject(data);
    if (facts.message === undefined) facts.message = "the Responses stream reported an error";
    return streamErrorItem(
      providerErrorFromFacts(facts, {
        provider: this.context.provider,
        model: this.context.model,
        secrets: this.context.secrets,
      }),
    );
  }

  private fail(item: StreamErrorItem): ModelStreamItem[] {
    this.finished = true;
    item.provider ??= this.context.provider;
    return [item];
  }
}

function outputIndex(data: JsonObject): number {
  return typeof data.output_index === "number" ? data.output_index : -1;
}
