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
import { toResponsesRequest } from "./map-request.js";
import { parseResponsesBody, type ResponsesParseContext } from "./parse-response.js";
import { type OpenAiResponsesModelOptions, resolveResponsesOptions } from "./responses-options.js";
import { ResponsesStreamParser } from "./stream-parser.js";

/**
 * A {@link ChatModel} for the OpenAI Responses API (`POST {baseUrl}/responses`), where OpenAI's
 * reasoning models keep their reasoning across turns. Over the platform `fetch` (injectable).
 *
 * - `invoke` sends a unary request (and reads an SSE body too, when a proxy streams anyway);
 *   `stream` sends `stream: true` and reads the typed SSE events (see `ResponsesStreamParser`).
 *   Both give the same response for the same answer.
 * - Reasoning items become reasoning blocks whose signature keeps the item id, the
 *   `encrypted_content` (`encryptedReasoning`, on by default with `store: false`) and the id
 *   of the item that followed, and go back as `reasoning` items on the next turn.
 * - Usage: cached input tokens as `cacheReadTokens`, reasoning tokens as `reasoningTokens`.
 * - Failures: HTTP errors and unreachable endpoints throw classified `ProviderError`s
 *   (`postJson`); `response.failed` and `error` events inside a 200 stream become classified
 *   `error` items (a `rate_limit_exceeded` keeps its "try again in ..." wait); a stream cut
 *   before `response.completed` is retryable. `options.signal` aborts the call (`cancelled`);
 *   the call bounds (`timeoutMs`, `headersTimeoutMs`, `streamIdleTimeoutMs`) end it with `timeout`.
 *   Secrets never appear in errors.
 */
export class OpenAiResponsesModel implements StreamingChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly profile: ModelProfile;
  /** `openai-responses:<origin>:<model>` — never contains the key. */
  readonly cacheIdentity: string;
  /** The base URL without credentials (`server.address` / `server.port` in traces). */
  readonly endpoint: string;
  /** The stream idle timeout in ms (0 or Infinity: none) unless a request sets its own. */
  readonly streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) unless a request sets its own. */
  readonly bounds: Readonly<CallBoundSettings>;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  readonly maxResponseBytes: number | undefined;
  private readonly headers: Record<string, string>;
  private readonly secrets: readonly string[];
  /** Posts, bounds and redacts every call (shared by the native adapters). */
  private readonly http: ProviderEndpoint;
  private readonly store: boolean | undefined;
  private readonly include: readonly string[];

  constructor(options: OpenAiResponsesModelOptions) {
    const resolved = resolveResponsesOptions(options);
    this.provider = resolved.provider;
    this.modelId = resolved.model;
    this.profile = resolved.profile ?? permissiveProfile();
    this.headers = resolved.headers;
    this.secrets = secretsFromConfig({ headers: resolved.headers, baseUrl: resolved.baseUrl });
    registerSecrets(this.secrets);
    this.store = resolved.store;
    this.include = resolved.include;
    this.streamIdleTimeoutMs = resolved.streamIdleTimeoutMs;
    this.bounds = Object.freeze(resolved.bounds);
    this.http = new ProviderEndpoint({
      url: joinUrl(resolved.baseUrl, "/responses"),
      headers: resolved.headers,
      secrets: this.secrets,
      fetch: resolved.fetch,
      bounds: this.bounds,
      provider: this.provider,
      model: this.modelId,
    });
    this.maxResponseBytes = resolved.maxResponseBytes;
    this.endpoint = displayUrl(resolved.baseUrl);
    this.cacheIdentity = `openai-responses:${this.endpoint}:${resolved.model}`;
  }

  /** The JSON body `invoke` (`stream: false`) or `stream` (`stream: true`) sends for `request`. */
  buildRequestBody(request: ModelRequest, stream: boolean): JsonObject {
    return toResponsesRequest(request, {
      provider: this.provider,
      modelId: this.modelId,
      stream,
      store: this.store,
      include: this.include,
    });
  }

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(
      "OpenAiResponsesModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.headers,
    );
  }

  /** `JSON.stringify(model)`: the same credential-free view as `util.inspect` (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(
      "OpenAiResponsesModel",
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

  private get parseContext(): ResponsesParseContext {
    return { provider: this.provider, model: this.modelId, secrets: this.secrets };
  }

  private async invokeWith(request: ModelRequest, call: CallBounds): Promise<ModelResponse> {
    const response = await this.http.post(this.buildRequestBody(request, false), call);
    if (
      (response.headers.get("content-type") ?? "").includes("text/event-stream") &&
      response.body !== null
    ) {
      // A proxy that streams although `stream: false` was sent: read the events like `stream`.
      const items = this.http.redactItems(this.readStream(response.body, call));
      return collectStream(items, { provider: this.provider, model: this.modelId });
    }
    const body = await readJsonBody(
      response,
      this.provider,
      this.modelId,
      call.signal,
      this.maxResponseBytes,
    );
    return parseResponsesBody(body, this.parseContext);
  }

  private async *streamWith(request: ModelRequest, call: CallBounds): AsyncGenerator<ModelStreamItem> {
    const response = await this.http.post(this.buildRequestBody(request, true), call);
    const contentType = response.headers.get("content-type") ?? "";
    if (response.body === null || contentType.includes("application/json")) {
      // A server (or proxy) that ignored `stream: true` and answered with one JSON response.
      const body = await readJsonBody(
        response,
        this.provider,
        this.modelId,
        call.signal,
        this.maxResponseBytes,
      );
      yield* responseToStreamItems(parseResponsesBody(body, this.parseContext));
      return;
    }
    yield* this.readStream(response.body, call);
  }

  private async *readStream(
    body: ReadableStream<Uint8Array>,
    call: CallBounds,
  ): AsyncGenerator<ModelStreamItem> {
    const parser = new ResponsesStreamParser(this.parseContext);
    for await (const frame of readSse(body, call.signal, {
      provider: this.provider,
      model: this.modelId,
      idleTimeoutMs: call.bounds.streamIdleTimeoutMs,
      maxBytes: this.maxResponseBytes,
      clock: call.clock,
    })) {
      const items = parser.push(frame);
      for (let i = 0; i < items.length; i++) yield items[i]!;
      if (parser.done) return;
    }
    if (call.signal.aborted) throw abortedError(call.signal, `${this.provider} responses stream`);
    yield* parser.end();
  }
}
