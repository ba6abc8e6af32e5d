import { factsFromObject } from "../../http/error-body.js";
import { providerErrorFromFacts } from "../../http/provider-error-from-response.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { FinishReason } from "../../model/model-response.js";
import { streamErrorItem } from "../../model/stream-accumulator.js";
import type { ModelStreamItem, StreamErrorItem } from "../../model/stream-item.js";
import type { Usage } from "../../usage/usage.js";
import { mapFinishReason } from "./finish-reason.js";
import { type SplitPiece, ThinkTagSplitter } from "./think-tag-splitter.js";
import { ToolCallAssembler } from "./tool-call-assembler.js";
import { normalizeOpenAiUsage, usageFromTimings } from "./usage.js";

/** Options for {@link ChunkParser}. */
export interface ChunkParserOptions {
  provider: string;
  model?: string | undefined;
  /** Split inline `<think>` tags out of the text. */
  thinkTags: boolean;
  /** The text starts inside a think block. */
  startsInReasoning: boolean;
  /** `completion_tokens` excludes reasoning (xAI). */
  completionExcludesReasoning: boolean;
  /** Id for tool calls the server sent without one. */
  generateToolCallId: () => string;
  /** Credentials to mask in error messages (the API key). */
  secrets?: readonly string[] | undefined;
}

/**
 * Turns Chat Completions chunks (streamed `chat.completion.chunk` objects) — and unary
 * `chat.completion` bodies, fed through {@link unary} — into `ModelStreamItem`s. One parser
 * serves both paths, so `invoke` and an accumulated `stream` of the same answer agree.
 *
 * Per chunk: a `start` item first (with the first non-empty `id` and `model`); then, for choice
 * 0 only, reasoning (`reasoning_content`, `reasoning` as a string or `{text|content|summary}`),
 * text (`content` as a string or text parts; inline `<think>` split out when enabled; `refusal`
 * as text), tool call fragments (see `ToolCallAssembler`; legacy `function_call` too). Empty
 * deltas are skipped. Usage is remembered from wherever it arrives (usage-only chunk, finish
 * chunk, every chunk, Groq's `x_groq.usage`, llama.cpp `timings`) — the last one wins — and
 * emitted once by {@link end}, followed by `finish` (`tool_calls` when calls were made and the
 * server said `stop`; `raw` = the chunk carrying the finish reason, or the unary body).
 * A chunk with an `error` key, or Mistral's top-level `{"object":"error", "message", ...}`,
 * produces an `error` item (see {@link errorItem}).
 */
export class ChunkParser {
  private readonly options: ChunkParserOptions;
  private readonly splitter: ThinkTagSplitter | undefined;
  private readonly tools: ToolCallAssembler;
  private started = false;
  private id: string | undefined;
  private model: string | undefined;
  private usage: Usage | undefined;
  private finishReason: FinishReason | undefined;
  private finishRaw: JsonValue | undefined;
  /** True once a finish reason arrived. */
  sawFinish = false;
  /** True once an `error` item was produced. */
  failed = false;

  constructor(options: ChunkParserOptions) {
    this.options = options;
    this.splitter = options.thinkTags
      ? new ThinkTagSplitter({ startsInReasoning: options.startsInReasoning })
      : undefined;
    this.tools = new ToolCallAssembler({ generateId: options.generateToolCallId });
  }

  /** Process one streamed chunk. Items go to `out`. */
  chunk(chunk: JsonObject, out: ModelStreamItem[]): void {
    if ((chunk.error !== undefined && chunk.error !== null) || chunk.object === "error") {
      this.start(chunk, out);
      out.push(this.errorItem(chunk));
      return;
    }
    this.start(chunk, out);
    this.readUsage(chunk);
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (const choice of choices) {
      if (!isJsonObject(choice)) continue;
      if (typeof choice.index === "number" && choice.index !== 0) continue;
      const delta = isJsonObject(choice.delta)
        ? choice.delta
        : isJsonObject(choice.message)
          ? choice.message
          : {};
      this.readDelta(delta, out);
      this.readFinish(choice.finish_reason, chunk);
    }
  }

  /** Process a whole unary `chat.completion` body (no `error` key: check that first). */
  unary(body: JsonObject, out: ModelStreamItem[]): void {
    this.chunk(body, out);
    if (this.sawFinish) this.finishRaw = body;
    this.end(out, body);
  }

  /** End of the answer: flush held text and tool calls, then `usage` and `finish`. */
  end(out: ModelStreamItem[], raw?: JsonValue): void {
    if (!this.started) this.start({}, out);
    if (this.splitter !== undefined) this.emitPieces(this.splitter, undefined, out);
    this.tools.finish(out);
    if (this.usage !== undefined) out.push({ type: "usage", usage: this.usage });
    let finishReason = this.finishReason ?? (this.tools.hasCalls ? "tool_calls" : "stop");
    if (finishReason === "stop" && this.tools.hasCalls) finishReason = "tool_calls";
    const finishRaw = this.finishRaw ?? raw;
    out.push(
      finishRaw === undefined
        ? { type: "finish", finishReason }
        : { type: "finish", finishReason, raw: finishRaw },
    );
  }

  /**
   * The `error` item for an `{"error": ...}` payload inside a 200 response (OpenAI, llama.cpp,
   * OpenRouter mid-stream failures): message, provider code and retryability from the shared
   * classification (an integer `code` in the HTTP range is taken as the status).
   */
  errorItem(payload: JsonObject): StreamErrorItem {
    this.failed = true;
    const facts = factsFromObject(payload);
    const numeric = facts.code !== undefined && /^\d{3}$/.test(facts.code) ? Number(facts.code) : undefined;
    const error = providerErrorFromFacts(facts, {
      provider: this.options.provider,
      model: this.options.model,
      status: numeric,
      secrets: this.options.secrets,
    });
    return streamErrorItem(error);
  }

  private start(chunk: JsonObject, out: ModelStreamItem[]): void {
    if (this.started) return;
    if (typeof chunk.id === "string" && chunk.id !== "") this.id = chunk.id;
    if (typeof chunk.model === "string" && chunk.model !== "") this.model = chunk.model;
    // Azure's first chunk has an empty id and no choices: wait for a real one.
    if (
      this.id === undefined &&
      !hasChoices(chunk) &&
      chunk.error === undefined &&
      chunk.usage === undefined
    ) {
      return;
    }
    this.started = true;
    const item: ModelStreamItem = { type: "start" };
    if (this.id !== undefined) item.id = this.id;
    if (this.model !== undefined) item.model = this.model;
    out.push(item);
  }

  private readUsage(chunk: JsonObject): void {
    let usage: Usage | undefined;
    if (isJsonObject(chunk.usage))
      usage = normalizeOpenAiUsage(chunk.usage, this.options.completionExcludesReasoning);
    if (usage === undefined && isJsonObject(chunk.x_groq) && isJsonObject(chunk.x_groq.usage)) {
      usage = normalizeOpenAiUsage(chunk.x_groq.usage, this.options.completionExcludesReasoning);
    }
    if (usage === undefined && this.usage === undefined && isJsonObject(chunk.timings)) {
      usage = usageFromTimings(chunk.timings);
    }
    if (usage !== undefined) this.usage = usage;
  }

  private readDelta(delta: JsonObject, out: ModelStreamItem[]): void {
    const reasoning = reasoningText(delta.reasoning_content) ?? reasoningText(delta.reasoning);
    if (reasoning !== undefined && reasoning !== "") out.push({ type: "reasoning_delta", text: reasoning });
    const content = contentText(delta.content);
    if (content !== undefined && content !== "") {
      if (this.splitter === undefined) out.push({ type: "text_delta", text: content });
      else this.emitPieces(this.splitter, content, out);
    }
    if (typeof delta.refusal === "string" && delta.refusal !== "") {
      out.push({ type: "text_delta", text: delta.refusal });
    }
    if (Array.isArray(delta.tool_calls)) this.tools.push(delta.tool_calls, out);
    else if (isJsonObject(delta.function_call))
      this.tools.push([{ index: 0, function: delta.function_call }], out);
  }

  private readFinish(reason: JsonValue | undefined, chunk: JsonObject): void {
    if (typeof reason !== "string" || reason === "") return;
    this.sawFinish = true;
    this.finishReason = mapFinishReason(reason);
    this.finishRaw = chunk;
  }

  private emitPieces(splitter: ThinkTagSplitter, text: string | undefined, out: ModelStreamItem[]): void {
    const pieces: SplitPiece[] = [];
    if (text === undefined) splitter.flush(pieces);
    else splitter.push(text, pieces);
    for (const piece of pieces) {
      out.push(
        piece.reasoning
          ? { type: "reasoning_delta", text: piece.text }
          : { type: "text_delta", text: piece.text },
      );
    }
  }
}

function hasChoices(chunk: JsonObject): boolean {
  return Array.isArray(chunk.choices) && chunk.choices.length > 0;
}

/** Reasoning as a string, `{text|content|summary}`, or an array of those. */
function reasoningText(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += reasoningText(item) ?? "";
    return out;
  }
  if (isJsonObject(value)) {
    for (const key of ["text", "content", "summary"]) {
      const inner = value[key];
      if (typeof inner === "string") return inner;
    }
  }
  return undefined;
}

/** Content as a string or an array of `{type:"text", text}` parts. */
function contentText(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return undefined;
  let out = "";
  for (const part of value) {
    if (isJsonObject(part) && typeof part.text === "string") out += part.text;
  }
  return out;
}
