import { ProviderError } from "../errors/provider-error.js";
import type { JsonObject, JsonValue } from "../json/json-value.js";
import { streamErrorItem } from "../model/stream-accumulator.js";
import type { ModelStreamItem } from "../model/stream-item.js";
import type { AiSdkGenerateResult, AiSdkProviderOptions } from "./ai-sdk-types.js";
import { type AiSdkErrorContext, aiSdkError } from "./map-error.js";
import { mapAiSdkFinishReason, normalizeAiSdkUsage } from "./map-usage.js";
import {
  encodeAiSdkReasoning,
  isRecord,
  mergeMetadata,
  metadataOf,
  reasoningSignatureItem,
  thoughtSignatures,
} from "./reasoning-metadata.js";

interface ToolState {
  ordinal: number;
  sawInput: boolean;
}

/**
 * Translates AI SDK stream parts (v2 and v3 share their names) into {@link ModelStreamItem}s:
 * - `response-metadata` -> `start` (response id, model id), once;
 * - `text-delta` -> `text_delta`; `reasoning-delta` -> `reasoning_delta`; at `reasoning-end`
 *   the provider metadata gathered from the reasoning part's start, deltas and end (Anthropic's
 *   thinking signature or redacted data, OpenAI's item id and encrypted content, Gemini's thought
 *   signature) becomes the block's signature (see `reasoning-metadata.ts`);
 * - a thought signature on the answer text or on a tool call (Gemini's `thoughtSignature`) -> an
 *   empty reasoning block whose signature names that part, so it goes back on it next turn;
 * - `tool-input-start` / `tool-input-delta` -> `tool_call_delta`s numbered in order; a
 *   `tool-call` without streamed input sends its input whole; provider-executed tools (built-in
 *   web search, code execution) are not the loop's to run and are skipped;
 * - `finish` -> `usage` and `finish` (`raw`: the provider metadata and the raw finish reason);
 * - `error` -> a classified `error` item (see `aiSdkError`); other parts are ignored.
 */
export class AiSdkPartTranslator {
  private readonly tools = new Map<string, ToolState>();
  private readonly skipped = new Set<string>();
  private readonly reasoning = new Map<string, AiSdkProviderOptions | undefined>();
  private ordinal = 0;
  private textSigned = false;
  private started = false;
  private finished = false;

  constructor(private readonly context: AiSdkErrorContext) {}

  /** True once a `finish` or an `error` part arrived. */
  get done(): boolean {
    return this.finished;
  }

  /** Translate one stream part. */
  push(part: unknown): ModelStreamItem[] {
    if (this.finished || !isRecord(part)) return [];
    switch (part.type) {
      case "response-metadata":
        return this.start(part.id, part.modelId);
      case "text-start":
      case "text-end":
        return this.textMetadata(part.providerMetadata);
      case "text-delta": {
        const items: ModelStreamItem[] =
          typeof part.delta === "string" && part.delta !== ""
            ? [{ type: "text_delta", text: part.delta }]
            : [];
        return [...items, ...this.textMetadata(part.providerMetadata)];
      }
      case "reasoning-start":
        this.reasoning.set(String(part.id), metadataOf(part.providerMetadata));
        return [];
      case "reasoning-delta": {
        const id = String(part.id);
        this.reasoning.set(id, mergeMetadata(this.reasoning.get(id), metadataOf(part.providerMetadata)));
        return typeof part.delta === "string" && part.delta !== ""
          ? [{ type: "reasoning_delta", text: part.delta }]
          : [];
      }
      case "reasoning-end": {
        const id = String(part.id);
        const metadata = mergeMetadata(this.reasoning.get(id), metadataOf(part.providerMetadata));
        this.reasoning.delete(id);
        return metadata === undefined ? [] : [signatureItem(metadata)];
      }
      case "tool-input-start": {
        const id = String(part.id);
        if (part.providerExecuted === true) {
          this.skipped.add(id);
          return [];
        }
        const state: ToolState = { ordinal: this.ordinal++, sawInput: false };
        this.tools.set(id, state);
        return [{ type: "tool_call_delta", index: state.ordinal, id, name: String(part.toolName ?? "") }];
      }
      case "tool-input-delta": {
        const state = this.tools.get(String(part.id));
        if (state === undefined || typeof part.delta !== "string" || part.delta === "") return [];
        state.sawInput = true;
        return [{ type: "tool_call_delta", index: state.ordinal, argumentsDelta: part.delta }];
      }
      case "tool-call":
        return this.toolCall(part);
      case "finish":
        this.finished = true;
        return this.finish(part.usage, part.finishReason, part.providerMetadata);
      case "error": {
        this.finished = true;
        const error = aiSdkError(part.error, this.context);
        if (!ProviderError.isProviderError(error)) throw error;
        return [streamErrorItem(error)];
      }
      default:
        return [];
    }
  }

  /** Call when the stream ended: a retryable error when no `finish` part arrived. */
  end(): ModelStreamItem[] {
    if (this.finished) return [];
    this.finished = true;
    return [
      {
        type: "error",
        message: `${this.context.provider}: the AI SDK stream ended before its finish part (the connection was cut?); the answer is incomplete, retry the call`,
        retryable: true,
        kind: "retryable",
        provider: this.context.provider,
        providerCode: "stream_truncated",
      },
    ];
  }

  /** The items of a whole `doGenerate` result, in the order a stream would send them. */
  generated(result: AiSdkGenerateResult): ModelStreamItem[] {
    const items: ModelStreamItem[] = [...this.start(result.response?.id, result.response?.modelId)];
    for (const part of result.content) {
      if (!isRecord(part)) continue;
      if (part.type === "text") {
        if (typeof part.text === "string" && part.text !== "")
          items.push({ type: "text_delta", text: part.text });
        items.push(...this.textMetadata(part.providerMetadata));
      } else if (part.type === "reasoning") {
        const text = typeof part.text === "string" ? part.text : "";
        if (text !== "") items.push({ type: "reasoning_delta", text });
        const metadata = metadataOf(part.providerMetadata);
        if (metadata !== undefined) items.push(signatureItem(metadata));
      } else if (part.type === "tool-call") {
        items.push(...this.toolCall(part));
      }
    }
    items.push(...this.finish(result.usage, result.finishReason, result.providerMetadata));
    this.finished = true;
    return items;
  }

  private start(id: unknown, modelId: unknown): ModelStreamItem[] {
    if (this.started) return [];
    this.started = true;
    const start: ModelStreamItem = { type: "start" };
    if (typeof id === "string" && id !== "") start.id = id;
    if (typeof modelId === "string" && modelId !== "") start.model = modelId;
    return [start];
  }

  /** Metadata on the answer text (Gemini's thought signature): kept once, for the text part. */
  private textMetadata(value: unknown): ModelStreamItem[] {
    const metadata = thoughtSignatures(value);
    if (metadata === undefined || this.textSigned) return [];
    this.textSigned = true;
    return [{ type: "reasoning_delta", text: "", signature: encodeAiSdkReasoning(metadata, { text: true }) }];
  }

  private toolCall(part: Record<string, unknown>): ModelStreamItem[] {
    const id = String(part.toolCallId ?? "");
    if (part.providerExecuted === true || this.skipped.has(id)) return [];
    const metadata = thoughtSignatures(part.providerMetadata);
    // A thought signature on a function call (Gemini) goes back on that call.
    const signed: ModelStreamItem[] =
      metadata === undefined
        ? []
        : [
            {
              type: "reasoning_delta",
              text: "",
              signature: encodeAiSdkReasoning(metadata, { toolCallId: id }),
            },
          ];
    return [...this.toolCallItems(part, id), ...signed];
  }

  private toolCallItems(part: Record<string, unknown>, id: string): ModelStreamItem[] {
    const input = typeof part.input === "string" ? part.input : JSON.stringify(part.input ?? {});
    const known = this.tools.get(id);
    if (known !== undefined) {
      if (known.sawInput || input === "") return [];
      known.sawInput = true;
      return [{ type: "tool_call_delta", index: known.ordinal, argumentsDelta: input }];
    }
    const state: ToolState = { ordinal: this.ordinal++, sawInput: true };
    this.tools.set(id, state);
    const item: ModelStreamItem = {
      type: "tool_call_delta",
      index: state.ordinal,
      id,
      name: String(part.toolName ?? ""),
    };
    if (input !== "") item.argumentsDelta = input;
    return [item];
  }

  private finish(usage: unknown, finishReason: unknown, providerMetadata: unknown): ModelStreamItem[] {
    const items: ModelStreamItem[] = [];
    const normalized = normalizeAiSdkUsage(usage);
    if (normalized !== undefined) items.push({ type: "usage", usage: normalized });
    const raw: JsonObject = {};
    if (isRecord(finishReason) && typeof finishReason.raw === "string") raw.finishReason = finishReason.raw;
    else if (typeof finishReason === "string") raw.finishReason = finishReason;
    const metadata = metadataOf(providerMetadata);
    if (metadata !== undefined) raw.providerMetadata = JSON.parse(JSON.stringify(metadata)) as JsonValue;
    items.push({ type: "finish", finishReason: mapAiSdkFinishReason(finishReason), raw });
    return items;
  }
}

/** The item that closes a reasoning part: its signature, or the redacted block it was. */
function signatureItem(metadata: AiSdkProviderOptions): ModelStreamItem {
  const kept = reasoningSignatureItem(metadata);
  return kept.type === "redacted"
    ? { type: "redacted_reasoning", data: kept.data }
    : { type: "reasoning_delta", text: "", signature: kept.signature };
}
