import { abortedError } from "../../errors/normalize.js";
import { joinUrl } from "../../http/base-url.js";
import type { CallBoundSettings, CallBounds } from "../../http/call-bounds.js";
import {
  INSPECT,
  inspectView,
  jsonView,
  registerSecrets,
  secretsFromConfig,
} from "../../http/config-secrets.js";
import { ProviderEndpoint } from "../../http/provider-endpoint.js";
import { readJsonBody } from "../../http/read-json-body.js";
import { displayUrl } from "../../http/redact.js";
import { readSse } from "../../http/sse.js";
import type { JsonObject } from "../../json/json-value.js";
import type { ModelCallOptions, StreamingChatModel } from "../../model/chat-model.js";
import { type ModelProfile, permissiveProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { collectStream } from "../../model/stream-accumulator.js";
import { responseToStreamItems } from "../../model/stream-from-response.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { type AnthropicModelOptions, resolveAnthropicOptions } from "./anthropic-options.js";
import { toAnthropicRequest } from "./map-request.js";
import { parseAnthropicResponse } from "./parse-response.js";
import { AnthropicStreamParser } from "./stream-parser.js";

const PROVIDER = "anthropic";

/**
 * A {@link ChatModel} for the native Anthropic Messages API (`POST {baseUrl}/v1/messages`), over
 * the platform `fetch` (injectable). `invoke` sends a unary request (and reads an SSE body too,
 * when a proxy streams anyway); `stream` reads the SSE stream. Both send `x-api-key` and `anthropic-version`, map the request as documented on
 * `toAnthropicRequest` (system blocks, tools, thinking, prompt-cache breakpoints, structured
 * output) and normalize usage so `inputTokens` includes cache reads and writes.
 *
 * Failures: non-2xx responses become `ProviderError`s (429 `rate_limit_error` with
 * `retryAfterMs`, 529 `overloaded_error` retryable, "prompt is too long" -> `context_overflow`);
 * an `error` event inside a 200 stream becomes an `error` stream item (`invoke`-style consumers
 * such as `collectStream` throw it as a `ProviderError`); a stream cut before `message_stop` is a
 * retryable error. An aborted `signal` throws its `cancelled` error; the call bounds (`timeoutMs`,
 * `headersTimeoutMs`, on `options.clock`) end it with a `timeout` error; a stream that makes no progress (a `ping` is none) for
 * `streamIdleTimeoutMs` fails with a `timeout` error (`details.limit: "stream_idle_timeout"`),
 * after the items that arrived before the stall. Secrets never appear in errors.
 *
 * Construction throws a `validation` error when no API key is configured.
 */
export class AnthropicModel implements StreamingChatModel {
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly profile: ModelProfile;
  /** `anthropic:<origin>:<model>` — never contains the key. */
  readonly cacheIdentity: string;
  /** The base URL without credentials (`server.address` / `server.port` in traces). */
  readonly endpoint: string;
  private readonly headers: Record<string, string>;
  /** The credential values of `headers` (x-api-key, authorization), masked in every error. */
  private readonly secrets: readonly string[];
  /** Posts, bounds and redacts every call (shared by the native adapters). */
  private readonly http: ProviderEndpoint;
  private readonly maxTokens: number;
  /** The stream idle timeout in ms (0 or Infinity: none) unless a request sets its own. */
  readonly streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) unless a request sets its own. */
  readonly bounds: Readonly<CallBoundSettings>;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  readonly maxResponseBytes: number | undefined;

  constructor(options: AnthropicModelOptions = {}) {
    const resolved = resolveAnthropicOptions(options);
    this.modelId = resolved.model;
    this.profile = resolved.profile ?? permissiveProfile();
    this.headers = resolved.headers;
    this.secrets = secretsFromConfig({ headers: resolved.headers, baseUrl: resolved.baseUrl });
    registerSecrets(this.secrets);
    this.maxTokens = resolved.maxTokens;
    this.streamIdleTimeoutMs = resolved.streamIdleTimeoutMs;
    this.bounds = Object.freeze(resolved.bounds);
    this.http = new ProviderEndpoint({
      url: joinUrl(resolved.baseUrl, "/v1/messages"),
      headers: resolved.headers,
      secrets: this.secrets,
      fetch: resolved.fetch,
      bounds: this.bounds,
      provider: PROVIDER,
      model: this.modelId,
    });
    this.maxResponseBytes = resolved.maxResponseBytes;
    this.cacheIdentity = `${PROVIDER}:${displayUrl(resolved.baseUrl)}:${resolved.model}`;
    this.endpoint = displayUrl(resolved.baseUrl);
  }

  /** The JSON body `invoke` (`stream: false`) or `stream` (`stream: true`) sends for `request`. */
  buildRequestBody(request: ModelRequest, stream: boolean): JsonObject {
    return toAnthropicRequest(request, { model: this.modelId, defaultMaxTokens: this.maxTokens, stream });
  }

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(
      "AnthropicModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.headers,
    );
  }

  /** `JSON.stringify(model)`: the same credential-free view as `util.inspect` (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(
      "AnthropicModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.headers,
    );
  }

  invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    return this.http.invoke(request, options, (call) => this.invokeWith(request, call));
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncGenerator<ModelStreamItem> {
    return this.http.stream(request, options, (call) => this.streamWith(request, call));
  }

  private async invokeWith(request: ModelRequest, call: CallBounds): Promise<ModelResponse> {
    const response = await this.http.post(this.buildRequestBody(request, false), call);
    if (
      (response.headers.get("content-type") ?? "").includes("text/event-stream") &&
      response.body !== null
    ) {
      // A proxy that streams although `stream: false` was sent: read the SSE events like
      // `stream` does and accumulate them into the same response (in-stream errors throw).
      const items = this.readStream(response.body, call);
      const redacted = this.http.redactItems(items);
      return collectStream(redacted, { provider: PROVIDER, model: this.modelId });
    }
    const body = await readJsonBody(response, PROVIDER, this.modelId, call.signal, this.maxResponseBytes);
    return parseAnthropicResponse(body, this.modelId);
  }

  private async *streamWith(request: ModelRequest, call: CallBounds): AsyncGenerator<ModelStreamItem> {
    const response = await this.http.post(this.buildRequestBody(request, true), call);
    const contentType = response.headers.get("content-type") ?? "";
    if (response.body === null || contentType.includes("application/json")) {
      // A server (or proxy) that ignored `stream: true` and answered with one JSON message.
      const body = await readJsonBody(response, PROVIDER, this.modelId, call.signal, this.maxResponseBytes);
      yield* responseToStreamItems(parseAnthropicResponse(body, this.modelId));
      return;
    }
    yield* this.readStream(response.body, call);
  }

  private async *readStream(
    body: ReadableStream<Uint8Array>,
    call: CallBounds,
  ): AsyncGenerator<ModelStreamItem> {
    const parser = new AnthropicStreamParser();
    for await (const frame of readSse(body, call.signal, {
      provider: PROVIDER,
      model: this.modelId,
      idleTimeoutMs: call.bounds.streamIdleTimeoutMs,
      clock: call.clock,
      maxBytes: this.maxResponseBytes,
    })) {
      const items = parser.push(frame);
      for (let i = 0; i < items.length; i++) yield items[i]!;
      if (parser.done) return;
    }
    if (call.signal.aborted) throw abortedError(call.signal, "anthropic stream");
    yield* parser.end();
  }
}
