import { ProviderError } from "../../errors/provider-error.js";
import { validationError } from "../../errors/tinyagents-error.js";
import { checkBaseUrl, joinUrl } from "../../http/base-url.js";
import { readBodyText } from "../../http/body-reader.js";
import {
  boundsForRequest,
  type CallBoundSettings,
  CallBounds,
  resolveCallBounds,
} from "../../http/call-bounds.js";
import {
  INSPECT,
  inspectView,
  jsonView,
  registerSecrets,
  secretsFromConfig,
} from "../../http/config-secrets.js";
import { factsFromObject } from "../../http/error-body.js";
import type { FetchLike } from "../../http/fetch-types.js";
import { postJson } from "../../http/post-json.js";
import { providerErrorFromFacts } from "../../http/provider-error-from-response.js";
import { displayUrl, redactSecrets } from "../../http/redact.js";
import { resolveMaxResponseBytes } from "../../http/response-limit.js";
import { readSseBatches } from "../../http/sse.js";
import { isStreamIdleTimeout } from "../../http/stream-idle-timeout.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";
import type { ModelCallOptions, StreamingChatModel } from "../../model/chat-model.js";
import type { ModelProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { StreamAccumulator } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { ChunkParser } from "./chunk-parser.js";
import { mapRequest } from "./map-request.js";
import { mergeQuirks, OPENAI_QUIRKS, type OpenAiQuirks } from "./quirks.js";
import { randomToolCallId } from "./tool-call-ids.js";

/** Options for {@link OpenAiChatModel}. */
export interface OpenAiChatModelOptions {
  /** The provider's model id (`gpt-4.1-mini`, `deepseek-chat`, `llama3.2`, ...). */
  model: string;
  /** API base URL including the version path (default `https://api.openai.com/v1`). */
  baseUrl?: string | undefined;
  /** Sent as `Authorization: Bearer <apiKey>` when non-empty. Never appears in errors. */
  apiKey?: string | undefined;
  /** Provider name for errors, usage and cache identity (default `openai`). */
  provider?: string | undefined;
  /** The fetch to use (default: the platform `fetch`). */
  fetch?: FetchLike | undefined;
  /** Extra request headers (organization, project, routing). */
  headers?: Record<string, string> | undefined;
  /** Server behaviour (see `OpenAiQuirks`); merged over `baseQuirks`. */
  quirks?: Partial<OpenAiQuirks> | undefined;
  /** The quirks the overrides apply to (default: OpenAI's own). Presets set this. */
  baseQuirks?: Readonly<OpenAiQuirks> | undefined;
  /** Static model facts (context window, capabilities). */
  profile?: ModelProfile | undefined;
  /** Id for tool calls the server returns without one (default: random `call_...`). */
  generateToolCallId?: (() => string) | undefined;
  /**
   * Bound on a whole call (headers and body), on the call's clock: a `timeout` error
   * (`details.limit: "model_call_timeout"`) when it passes. Default `DEFAULT_CALL_TIMEOUT_MS`
   * (10 min); `0` or `Infinity` removes it; `request.timeoutMs` overrides it per call.
   */
  timeoutMs?: number | undefined;
  /**
   * Wait for the response headers of a streamed call: a `timeout` error (`details.limit:
   * "headers_timeout"`) when they do not arrive. Default `DEFAULT_HEADERS_TIMEOUT_MS` (60 s);
   * `0` or `Infinity` removes it; `request.headersTimeoutMs` overrides it per call.
   */
  headersTimeoutMs?: number | undefined;
  /**
   * Fail a streamed response that makes no progress (no event with data: keep-alive comments,
   * blank events and bytes trickled into an unfinished event do not count) for this many ms of
   * waiting, from the headers on, with a `timeout` error (`details.limit: "stream_idle_timeout"`).
   * Default `DEFAULT_STREAM_IDLE_TIMEOUT_MS` (240 s); `0` or `Infinity` disables it;
   * `request.streamIdleTimeoutMs` overrides it per call.
   */
  streamIdleTimeoutMs?: number | undefined;
  /**
   * Total byte cap of one response body: a longer stream or JSON body fails with a non-retryable
   * `response_too_large` and the rest is cancelled unread. Default: `MAX_STREAM_BYTES` (48 MiB)
   * for a stream, `MAX_BODY_BYTES` (32 MiB) for a JSON body; `Infinity` disables it.
   */
  maxResponseBytes?: number | undefined;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";

/**
 * A `ChatModel` over the OpenAI Chat Completions API and every server that speaks it
 * (DeepSeek, Groq, xAI, Mistral, OpenRouter, Together, Ollama `/v1`, LM Studio, llama.cpp, vLLM, ...).
 * Use a preset (`openai()`, `groq()`, ...) or `createModel("provider:model")` rather than
 * configuring quirks by hand.
 *
 * - `invoke` POSTs `{base}/chat/completions` without `stream`; `stream` sends `stream: true`
 *   (and `stream_options.include_usage`) and parses the SSE body. Both run the answer through
 *   the same `ChunkParser` and `StreamAccumulator`, so `invoke` returns exactly what accumulating
 *   `stream` gives for the same answer. A server that answers a streaming request with plain
 *   JSON (or a unary request with SSE) is handled.
 * - Errors: HTTP errors and unreachable endpoints throw `ProviderError` (see `postJson`); an
 *   `{"error": ...}` payload inside a 200 stream yields an `error` item (thrown as a
 *   `ProviderError` by the accumulator in `invoke`); a stream that ends before `[DONE]` and
 *   before any finish reason throws a retryable `stream_truncated` error; context overflow is
 *   a `context_overflow` error. `options.signal` aborts the call (`cancelled`); the call bounds
 *   (`timeoutMs`, `headersTimeoutMs`, on `options.clock`) end it with a `timeout` error. An SSE body (for `stream`, or a lax server's answer to `invoke`)
 *   that sends no data for `streamIdleTimeoutMs` fails with a `timeout` error
 *   (`details.limit: "stream_idle_timeout"`); deltas streamed before the stall were delivered.
 */
export class OpenAiChatModel implements StreamingChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly profile?: ModelProfile;
  readonly cacheIdentity: string;
  /** The base URL without credentials (`server.address` / `server.port` in traces). */
  readonly endpoint: string;
  /** The endpoint base URL (no trailing slash). */
  readonly baseUrl: string;
  /** The effective quirks. */
  readonly quirks: Readonly<OpenAiQuirks>;
  /** The stream idle timeout in ms (0 or Infinity: none) unless a request sets its own. */
  readonly streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) unless a request sets its own. */
  readonly bounds: Readonly<CallBoundSettings>;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  readonly maxResponseBytes: number | undefined;
  private readonly apiKey: string | undefined;
  private readonly fetchFn: FetchLike | undefined;
  private readonly extraHeaders: Record<string, string>;
  /** The configured credentials (API key, header values, base-URL query), masked in every error. */
  private readonly secrets: readonly string[];
  private readonly generateToolCallId: () => string;

  constructor(options: OpenAiChatModelOptions) {
    if (typeof options.model !== "string" || options.model.trim() === "") {
      throw validationError(
        "OpenAiChatModel: `model` must be a non-empty model id (for example gpt-4.1-mini)",
        {
          field: "model",
        },
      );
    }
    this.modelId = options.model;
    this.provider = options.provider ?? "openai";
    this.baseUrl = normalizeBaseUrl(checkBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, "OpenAiChatModel"));
    this.apiKey = options.apiKey === "" ? undefined : options.apiKey;
    this.fetchFn = options.fetch;
    this.extraHeaders = { ...options.headers };
    this.quirks = Object.freeze(mergeQuirks(options.baseQuirks ?? OPENAI_QUIRKS, options.quirks));
    this.bounds = Object.freeze(resolveCallBounds(options, "OpenAiChatModel"));
    this.streamIdleTimeoutMs = this.bounds.streamIdleTimeoutMs;
    this.maxResponseBytes = resolveMaxResponseBytes(options.maxResponseBytes, "OpenAiChatModel");
    if (options.profile !== undefined) this.profile = options.profile;
    const style = this.quirks.toolCallIds;
    this.generateToolCallId = options.generateToolCallId ?? (() => randomToolCallId(style));
    this.secrets = secretsFromConfig({
      apiKey: this.apiKey,
      headers: options.headers,
      baseUrl: this.baseUrl,
    });
    registerSecrets(this.secrets);
    this.endpoint = displayUrl(this.baseUrl);
    this.cacheIdentity = `${this.provider}|${this.modelId}|${this.endpoint}`;
  }

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(
      "OpenAiChatModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.extraHeaders,
    );
  }

  /** `JSON.stringify(model)`: the same credential-free view as `util.inspect` (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(
      "OpenAiChatModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.extraHeaders,
    );
  }

  /** The Chat Completions body this model would send for `request` (for tests and debugging). */
  buildBody(request: ModelRequest, stream: boolean): JsonObject {
    return mapRequest(request, {
      provider: this.provider,
      modelId: this.modelId,
      quirks: this.quirks,
      stream,
    });
  }

  async invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const accumulator = new StreamAccumulator({
      provider: this.provider,
      model: this.modelId,
      ...(this.maxResponseBytes === undefined ? {} : { maxChars: this.maxResponseBytes }),
    });
    for await (const item of this.run(request, options, false)) accumulator.push(item);
    return accumulator.finish();
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncIterable<ModelStreamItem> {
    return this.run(request, options, true);
  }

  private async *run(
    request: ModelRequest,
    options: ModelCallOptions,
    stream: boolean,
  ): AsyncGenerator<ModelStreamItem, void, undefined> {
    const body = this.buildBody(request, stream);
    const call = new CallBounds({
      signal: options.signal,
      clock: options.clock,
      bounds: boundsForRequest(this.bounds, request),
      streaming: stream,
      provider: this.provider,
      model: this.modelId,
    });
    try {
      const headers = this.headers(stream);
      const response = await postJson({
        url: joinUrl(this.baseUrl, "/chat/completions"),
        body,
        headers,
        fetch: this.fetchFn,
        bounds: call,
        secrets: this.secrets,
        provider: this.provider,
        model: this.modelId,
      });
      const parser = this.parser(this.secrets);
      const type = response.headers.get("content-type") ?? "";
      if (!type.includes("text/event-stream") || response.body === null) {
        const text = await readBodyText(response.body, call.signal, {
          provider: this.provider,
          model: this.modelId,
          maxBytes: this.maxResponseBytes,
          clock: call.clock,
        });
        yield* this.readUnary(text, parser, response.status, this.secrets);
        return;
      }
      // The SSE path is inlined (one generator, events in per-read batches): it is the hot path.
      const out: ModelStreamItem[] = [];
      let done = false;
      let last: JsonObject | undefined;
      try {
        read: for await (const batch of readSseBatches(response.body, call.signal, {
          provider: this.provider,
          model: this.modelId,
          idleTimeoutMs: call.bounds.streamIdleTimeoutMs,
          maxBytes: this.maxResponseBytes,
          clock: call.clock,
        })) {
          for (let e = 0; e < batch.length; e++) {
            const event = batch[e]!;
            const data = event.data;
            if (data === "[DONE]" || data.trim() === "[DONE]") {
              done = true;
              break read;
            }
            const chunk = parseJson(data);
            if (chunk === undefined) {
              if (data.trim() === "") continue;
              throw this.malformedChunk(data, this.secrets);
            }
            last = chunk;
            if (event.event === "error" && chunk.error === undefined)
              out.push(parser.errorItem({ error: chunk }));
            else parser.chunk(chunk, out);
            if (parser.failed) break read;
          }
          if (out.length > 0) {
            for (let i = 0; i < out.length; i++) yield out[i]!;
            out.length = 0;
          }
        }
      } catch (error) {
        // A cut (or a hang) right after the finish chunk — no usage chunk, no [DONE] — still is a
        // whole answer.
        if (
          !(
            parser.sawFinish &&
            ((ProviderError.isProviderError(error) && error.providerCode === "stream_truncated") ||
              isStreamIdleTimeout(error))
          )
        ) {
          throw error;
        }
      }
      if (parser.failed) {
        yield* out;
        return;
      }
      if (!done && !parser.sawFinish) {
        throw new ProviderError({
          provider: this.provider,
          model: this.modelId,
          kind: "retryable",
          providerCode: "stream_truncated",
          message: `${this.provider}: the response stream ended before [DONE] and before any finish_reason; the connection was probably cut. Retry the call.`,
        });
      }
      parser.end(out, last);
      yield* out;
    } finally {
      call.dispose();
    }
  }

  /**
   * A stream event whose data is not a JSON object: the answer would silently lose that chunk's
   * deltas, so the call fails (non-retryable `malformed_stream`, the data capped and redacted).
   */
  private malformedChunk(data: string, secrets: readonly string[]): ProviderError {
    const shown = redactSecrets(data.slice(0, 8192), secrets);
    return new ProviderError({
      provider: this.provider,
      model: this.modelId,
      kind: "non_retryable",
      providerCode: "malformed_stream",
      message: `${this.provider}: the response stream contained an event whose data is not a JSON object (${JSON.stringify(shown.slice(0, 120))}); its content would be lost, so the call failed.`,
      rawBody: shown,
    });
  }

  private *readUnary(
    text: string,
    parser: ChunkParser,
    status: number,
    secrets: readonly string[],
  ): Generator<ModelStreamItem, void, undefined> {
    const body = parseJson(text);
    if (body === undefined) {
      const shown = redactSecrets(text.slice(0, 8192), secrets);
      throw new ProviderError({
        provider: this.provider,
        model: this.modelId,
        kind: "non_retryable",
        status,
        providerCode: "invalid_response",
        message: `${this.provider}: the response to a chat completion was not a JSON object (got ${JSON.stringify(shown.slice(0, 120))}); check that the base URL points at an OpenAI-compatible /v1 endpoint.`,
        rawBody: shown,
      });
    }
    if ((body.error !== undefined && body.error !== null) || body.object === "error") {
      throw providerErrorFromFacts(factsFromObject(body), {
        provider: this.provider,
        model: this.modelId,
        secrets,
        rawBody: text,
      });
    }
    const out: ModelStreamItem[] = [];
    parser.unary(body, out);
    yield* out;
  }

  private parser(secrets: readonly string[]): ChunkParser {
    return new ChunkParser({
      provider: this.provider,
      model: this.modelId,
      thinkTags: this.quirks.thinkTags,
      startsInReasoning: this.quirks.startsInReasoning,
      completionExcludesReasoning: this.quirks.completionExcludesReasoning,
      generateToolCallId: this.generateToolCallId,
      secrets,
    });
  }

  private headers(stream: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: stream ? "text/event-stream" : "application/json" };
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    return { ...headers, ...this.extraHeaders };
  }
}

/** Strip trailing slashes (and a trailing `/chat/completions`) from a base URL. */
export function normalizeBaseUrl(url: string): string {
  const q = url.search(/[?#]/);
  const path = q === -1 ? url : url.slice(0, q);
  const rest = q === -1 ? "" : url.slice(q);
  return `${path.replace(/\/+$/, "").replace(/\/chat\/completions$/, "")}${rest}`;
}

function parseJson(text: string): JsonObject | undefined {
  try {
    const value: JsonValue = JSON.parse(text) as JsonValue;
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
