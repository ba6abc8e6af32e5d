import { classifyProviderFailure } from "../errors/classify.js";
import { isRetryableKind, ProviderError, type ProviderFailureKind } from "../errors/provider-error.js";
import type { JsonObject, JsonValue } from "../json/json-value.js";
import type { ContentBlock, RedactedReasoningBlock } from "../message/content-block.js";
import type { AssistantMessage } from "../message/message.js";
import type { InvalidToolArguments, ToolCall } from "../tool/tool-call.js";
import type { Usage } from "../usage/usage.js";
import type { FinishReason, ModelResponse } from "./model-response.js";
import type { ModelStreamItem, StreamErrorItem } from "./stream-item.js";

/** Who produced the stream, for the `ProviderError` thrown on an `error` item. */
export interface StreamAccumulatorOptions {
  /** Provider name (default `"unknown"`). */
  provider?: string;
  /** Model id; a `start` item's `model` overrides it. */
  model?: string;
  /**
   * Most characters of text, reasoning, redacted reasoning and tool-call arguments the response
   * may accumulate in total (default {@link MAX_ASSEMBLED_CHARS}; `Infinity`: no cap). Past it,
   * {@link StreamAccumulator.push} throws a non-retryable `ProviderError`
   * (`providerCode: "response_too_large"`), so a model that never stops cannot exhaust memory.
   */
  maxChars?: number;
}

/**
 * Default cap on what one response accumulates (characters of text, reasoning and tool
 * arguments together). A character needs at least one body byte, so an HTTP adapter's byte cap
 * (`MAX_STREAM_BYTES`, 48 MiB) is reached first; this one bounds models without a body
 * (custom `ChatModel`s, SDK wrappers, test models).
 */
export const MAX_ASSEMBLED_CHARS = 48 * 1024 * 1024;

interface ReasoningParts {
  type: "reasoning";
  parts: string[];
  signature?: string;
}

interface CallParts {
  id: string;
  name: string;
  args: string[];
}

/**
 * Rebuilds a {@link ModelResponse} from {@link ModelStreamItem}s in O(total fragments): text
 * pieces are collected in arrays and joined once in {@link finish}.
 *
 * Rules:
 * - content is reasoning and redacted-reasoning blocks first (in arrival order), then ONE text
 *   block holding every `text_delta` joined (present when at least one text delta arrived, even
 *   an empty one; adapters should not emit empty deltas);
 * - `reasoning_delta`s append to the current reasoning block; a new block starts when there is
 *   none, when a redacted block arrived since, or when the current block already has a signature
 *   (providers send the signature last). A delta's `signature` is stored on its block;
 * - tool call fragments are keyed by `index`: the first non-empty `id` and `name` win, argument
 *   fragments concatenate and are parsed by {@link parseToolArguments}; a call without an id gets
 *   `call_${index}`, one without a name gets `""`; calls are ordered by index;
 * - the last `usage` item wins (`response.usage`; `message.usage` is left unset);
 * - `finishReason` comes from the `finish` item (whose `raw` becomes `response.raw`), else
 *   `"tool_calls"` when there are calls, else `"stop"`; `start.id` becomes `message.id`;
 * - an `error` item makes {@link push} throw a {@link ProviderError}: its `kind` (else one
 *   classified from its status/code/message), adjusted to agree with the item's `retryable`
 *   flag, its `retryAfterMs`, and its `provider` (else the accumulator's).
 */
export class StreamAccumulator {
  private readonly provider: string;
  private model: string | undefined;
  private id: string | undefined;
  private readonly reasoning: Array<ReasoningParts | RedactedReasoningBlock> = [];
  private openReasoning: ReasoningParts | undefined;
  private textParts: string[] | undefined;
  private readonly calls = new Map<number, CallParts>();
  private usage: Usage | undefined;
  private finishReason: FinishReason | undefined;
  private raw: JsonValue | undefined;
  /** A `start` item arrived (the provider accepted the request and began answering). */
  private begun = false;
  /** Characters accumulated so far, and the cap. */
  private chars = 0;
  private readonly maxChars: number;

  constructor(options: StreamAccumulatorOptions = {}) {
    this.provider = options.provider ?? "unknown";
    this.model = options.model;
    this.maxChars = options.maxChars ?? MAX_ASSEMBLED_CHARS;
  }

  /** Fold one item in. Throws a `ProviderError` for an `error` item. */
  push(item: ModelStreamItem): void {
    switch (item.type) {
      case "text_delta":
        this.count(item.text.length);
        if (this.textParts === undefined) this.textParts = [item.text];
        else this.textParts.push(item.text);
        return;
      case "reasoning_delta": {
        this.count(item.text.length);
        let block = this.openReasoning;
        if (block === undefined || block.signature !== undefined) {
          block = { type: "reasoning", parts: [] };
          this.reasoning.push(block);
          this.openReasoning = block;
        }
        block.parts.push(item.text);
        if (item.signature !== undefined) block.signature = item.signature;
        return;
      }
      case "redacted_reasoning":
        this.count(item.data.length);
        this.reasoning.push({ type: "redacted_reasoning", data: item.data });
        this.openReasoning = undefined;
        return;
      case "tool_call_delta": {
        let call = this.calls.get(item.index);
        if (call === undefined) {
          call = { id: "", name: "", args: [] };
          this.calls.set(item.index, call);
        }
        if (call.id === "" && item.id !== undefined) call.id = item.id;
        if (call.name === "" && item.name !== undefined) call.name = item.name;
        if (item.argumentsDelta !== undefined) {
          this.count(item.argumentsDelta.length);
          call.args.push(item.argumentsDelta);
        }
        return;
      }
      case "usage":
        this.usage = item.usage;
        return;
      case "finish":
        this.finishReason = item.finishReason;
        this.raw = item.raw;
        return;
      case "start":
        this.begun = true;
        if (item.id !== undefined) this.id = item.id;
        if (item.model !== undefined) this.model = item.model;
        return;
      case "error":
        throw streamError(item, this.provider, this.model);
    }
  }

  /** Add `n` accumulated characters; throws `response_too_large` past the cap. */
  private count(n: number): void {
    this.chars += n;
    if (this.chars > this.maxChars) throw this.tooLarge();
  }

  /** The error of a response that outgrew {@link StreamAccumulatorOptions.maxChars}. */
  private tooLarge(): ProviderError {
    return new ProviderError({
      provider: this.provider,
      kind: "non_retryable",
      providerCode: "response_too_large",
      message: `${this.provider}: the response accumulated more than ${this.maxChars} characters of text, reasoning and tool arguments, so reading stopped (memory stays bounded); lower max_tokens or check the endpoint.`,
      ...(this.model === undefined ? {} : { model: this.model }),
    });
  }
  /**
   * Whether the provider began answering (a `start`, content, usage or finish item arrived): a
   * stream that fails after that may have been billed, one that fails before it was not.
   */
  get started(): boolean {
    return (
      this.begun ||
      this.textParts !== undefined ||
      this.reasoning.length > 0 ||
      this.calls.size > 0 ||
      this.usage !== undefined ||
      this.finishReason !== undefined
    );
  }

  /** The usage the provider reported so far (the last `usage` item), if any. */
  get reportedUsage(): Usage | undefined {
    return this.usage;
  }

  /** The response built from everything pushed so far. Can be called more than once. */
  finish(): ModelResponse {
    const content: ContentBlock[] = [];
    for (const block of this.reasoning) {
      if (block.type === "redacted_reasoning") {
        content.push(block);
        continue;
      }
      const built: ContentBlock = { type: "reasoning", text: block.parts.join("") };
      if (block.signature !== undefined) built.signature = block.signature;
      content.push(built);
    }
    if (this.textParts !== undefined) content.push({ type: "text", text: this.textParts.join("") });
    const toolCalls: ToolCall[] = [];
    const indexes = [...this.calls.keys()].sort((a, b) => a - b);
    for (const index of indexes) {
      const parts = this.calls.get(index)!;
      const parsed = parseToolArguments(parts.args.join(""));
      const call: ToolCall = {
        id: parts.id === "" ? `call_${index}` : parts.id,
        name: parts.name,
        arguments: parsed.arguments,
      };
      if (parsed.invalid !== undefined) call.invalid = parsed.invalid;
      toolCalls.push(call);
    }
    const message: AssistantMessage = { role: "assistant", content, toolCalls };
    if (this.id !== undefined) message.id = this.id;
    const response: ModelResponse = {
      message,
      finishReason: this.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    };
    if (this.usage !== undefined) response.usage = this.usage;
    if (this.raw !== undefined) response.raw = this.raw;
    return response;
  }
}

/** The parsed arguments of a tool call, with `invalid` set when the text was unusable. */
export interface ParsedToolArguments {
  arguments: JsonObject;
  invalid?: InvalidToolArguments;
}

/**
 * Parse a tool call's argument text. Empty (or whitespace-only) text means no arguments (`{}`).
 * Text that is not JSON, or JSON that is not an object (an array, a number, ...), gives
 * `arguments: {}` and `invalid: { raw, error }` so the loop can answer with an error result.
 */
export function parseToolArguments(raw: string): ParsedToolArguments {
  if (raw.trim() === "") return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { arguments: {}, invalid: { raw, error: error instanceof Error ? error.message : String(error) } };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { arguments: {}, invalid: { raw, error: `tool arguments must be a JSON object, got ${got}` } };
  }
  return { arguments: value as JsonObject };
}

/** Accumulate a whole stream into a response. Throws like {@link StreamAccumulator.push}. */
export async function collectStream(
  items: AsyncIterable<ModelStreamItem> | Iterable<ModelStreamItem>,
  options: StreamAccumulatorOptions = {},
): Promise<ModelResponse> {
  const accumulator = new StreamAccumulator(options);
  for await (const item of items) accumulator.push(item);
  return accumulator.finish();
}

function streamError(item: StreamErrorItem, provider: string, model: string | undefined): ProviderError {
  let kind: ProviderFailureKind =
    item.kind ??
    classifyProviderFailure({
      status: item.status,
      code: item.providerCode,
      message: item.message,
    });
  if (isRetryableKind(kind) !== item.retryable) kind = item.retryable ? "retryable" : "non_retryable";
  return new ProviderError({
    provider: item.provider ?? provider,
    message: item.message,
    kind,
    ...(model === undefined ? {} : { model }),
    ...(item.status === undefined ? {} : { status: item.status }),
    ...(item.providerCode === undefined ? {} : { providerCode: item.providerCode }),
    ...(item.retryAfterMs === undefined ? {} : { retryAfterMs: item.retryAfterMs }),
  });
}

/**
 * The `error` stream item that carries everything a classified {@link ProviderError} knows
 * (kind, retryability, retry-after, provider, status, code): what adapters yield for a failure
 * reported inside a 200 stream, so the consumer's thrown error is the same one a non-2xx
 * response would have given.
 */
export function streamErrorItem(error: ProviderError): StreamErrorItem {
  const item: StreamErrorItem = {
    type: "error",
    message: error.message,
    retryable: error.retryable,
    kind: error.kind,
    provider: error.provider,
  };
  if (error.status !== undefined) item.status = error.status;
  if (error.providerCode !== undefined) item.providerCode = error.providerCode;
  if (error.retryAfterMs !== undefined) item.retryAfterMs = error.retryAfterMs;
  return item;
}
