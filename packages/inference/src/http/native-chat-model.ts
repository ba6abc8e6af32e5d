import { abortedError } from "../errors/normalize.js";
import type { JsonObject, JsonValue } from "../json/json-value.js";
import type { ModelCallOptions, StreamingChatModel } from "../model/chat-model.js";
import type { ModelRequest } from "../model/model-request.js";
import type { ModelResponse } from "../model/model-response.js";
import { collectStream } from "../model/stream-accumulator.js";
import { responseToStreamItems } from "../model/stream-from-response.js";
import type { ModelStreamItem } from "../model/stream-item.js";
import { joinUrl } from "./base-url.js";
import type { CallBoundSettings, CallBounds } from "./call-bounds.js";
import { INSPECT, inspectView, jsonView, registerSecrets, secretsFromConfig } from "./config-secrets.js";
import type { FetchLike } from "./fetch-types.js";
import { ProviderEndpoint } from "./provider-endpoint.js";
import { readJsonBody } from "./read-json-body.js";
import { displayUrl } from "./redact.js";
import type { StreamFraming } from "./stream-framing.js";

/** What a native adapter resolved from its options, for {@link NativeChatModel}'s constructor. */
export interface NativeChatModelSetup<Frame> {
  /** The adapter's class name, shown by `util.inspect` and `JSON.stringify`. */
  className: string;
  provider: string;
  model: string;
  /** The base URL as configured (its credentials and query values are only ever shown masked). */
  baseUrl: string;
  /** The API path joined to the base URL (`/v1/messages`). */
  path: string;
  /** The first part of `cacheIdentity`: `<identityPrefix>:<endpoint>:<model>`. */
  identityPrefix: string;
  /** Every header sent, credentials included: masked in errors, only their names shown. */
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  bounds: CallBoundSettings;
  maxResponseBytes: number | undefined;
  framing: StreamFraming<Frame>;
  /** What a stream is called in the `cancelled` error of an abort (`anthropic stream`). */
  streamName: string;
}

/** Turns one streamed answer's frames into stream items (one parser per call). */
export interface FrameParser<Frame> {
  /** The items a frame completes. */
  push(frame: Frame): ModelStreamItem[];
  /** True once the answer's last frame arrived: the rest of the body is not read. */
  readonly done: boolean;
  /** The items at the end of the body (a retryable error when the answer was cut short). */
  end(): ModelStreamItem[];
}

/**
 * What the native adapters (`AnthropicModel`, `OpenAiResponsesModel`, `OllamaModel`) have in
 * common, so each says only how a request maps and how an answer parses: the credential-free
 * identity (`endpoint`, `cacheIdentity`, `util.inspect`, `JSON.stringify`), the call bounds and
 * secret masking of {@link ProviderEndpoint}, and the two calls. `invoke` posts `stream: false`
 * and parses the JSON body, or accumulates the frames when a proxy streams anyway; `stream` posts
 * `stream: true` and yields the frames' items, or the items of one JSON body when the server
 * answered unary anyway. A stream that ends early because the call was aborted throws the
 * `cancelled` error; otherwise the parser's `end()` says whether the answer was whole.
 */
export abstract class NativeChatModel<Frame> implements StreamingChatModel {
  readonly provider: string;
  readonly modelId: string;
  /** `<provider>:<origin>:<model>` — never contains a credential. */
  readonly cacheIdentity: string;
  /** The base URL without credentials (`server.address` / `server.port` in traces). */
  readonly endpoint: string;
  /** The stream idle timeout in ms (0 or Infinity: none) unless a request sets its own. */
  readonly streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) unless a request sets its own. */
  readonly bounds: Readonly<CallBoundSettings>;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  readonly maxResponseBytes: number | undefined;
  /** The configured credentials (header values, base-URL query), masked in every error. */
  protected readonly secrets: readonly string[];
  /** Posts, bounds and redacts every call. */
  protected readonly http: ProviderEndpoint;
  private readonly className: string;
  private readonly headers: Record<string, string>;
  private readonly framing: StreamFraming<Frame>;
  private readonly streamName: string;

  constructor(setup: NativeChatModelSetup<Frame>) {
    this.provider = setup.provider;
    this.modelId = setup.model;
    this.className = setup.className;
    this.headers = setup.headers;
    this.framing = setup.framing;
    this.streamName = setup.streamName;
    this.secrets = secretsFromConfig({ headers: setup.headers, baseUrl: setup.baseUrl });
    registerSecrets(this.secrets);
    this.bounds = Object.freeze(setup.bounds);
    this.streamIdleTimeoutMs = this.bounds.streamIdleTimeoutMs;
    this.maxResponseBytes = setup.maxResponseBytes;
    this.http = new ProviderEndpoint({
      url: joinUrl(setup.baseUrl, setup.path),
      headers: setup.headers,
      secrets: this.secrets,
      fetch: setup.fetch,
      bounds: this.bounds,
      provider: setup.provider,
      model: setup.model,
    });
    this.endpoint = displayUrl(setup.baseUrl);
    this.cacheIdentity = `${setup.identityPrefix}:${this.endpoint}:${setup.model}`;
  }

  /** The JSON body `invoke` (`stream: false`) or `stream` (`stream: true`) sends for `request`. */
  abstract buildRequestBody(request: ModelRequest, stream: boolean): JsonObject;

  /** The response a whole JSON answer parses to. */
  protected abstract parseBody(body: JsonValue, request: ModelRequest): ModelResponse;

  /** A fresh parser for one streamed answer to `request`. */
  protected abstract streamParser(request: ModelRequest): FrameParser<Frame>;

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(this.className, this.publicFields(), this.headers);
  }

  /** `JSON.stringify(model)`: the same credential-free view as `util.inspect` (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(this.className, this.publicFields(), this.headers);
  }

  invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    return this.http.invoke(request, options, (call) => this.invokeWith(request, call));
  }

  stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncGenerator<ModelStreamItem> {
    return this.http.stream(request, options, (call) => this.streamWith(request, call));
  }

  private publicFields(): Record<string, string> {
    return { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint };
  }

  private async invokeWith(request: ModelRequest, call: CallBounds): Promise<ModelResponse> {
    const response = await this.http.post(this.buildRequestBody(request, false), call);
    if (this.framing.streamedAnyway(response)) {
      // A proxy (or an older server) that streams although `stream: false` was sent: read the
      // frames like `stream` does and accumulate them into the same response (in-stream errors throw).
      const items = this.http.redactItems(this.readStream(response, request, call));
      return collectStream(items, { provider: this.provider, model: this.modelId });
    }
    return this.parseBody(await this.readJson(response, call), request);
  }

  private async *streamWith(request: ModelRequest, call: CallBounds): AsyncGenerator<ModelStreamItem> {
    const response = await this.http.post(this.buildRequestBody(request, true), call);
    if (this.framing.unaryAnyway(response)) {
      // A server (or proxy) that ignored `stream: true` and answered with one JSON body.
      yield* responseToStreamItems(this.parseBody(await this.readJson(response, call), request));
      return;
    }
    yield* this.readStream(response, request, call);
  }

  private readJson(response: Response, call: CallBounds): Promise<JsonValue> {
    return readJsonBody(response, this.provider, this.modelId, call.signal, this.maxResponseBytes);
  }

  private async *readStream(
    response: Response,
    request: ModelRequest,
    call: CallBounds,
  ): AsyncGenerator<ModelStreamItem> {
    const parser = this.streamParser(request);
    if (response.body === null) {
      yield* parser.end();
      return;
    }
    for await (const frame of this.framing.read(response.body, call.signal, {
      provider: this.provider,
      model: this.modelId,
      idleTimeoutMs: call.bounds.streamIdleTimeoutMs,
      clock: call.clock,
      maxBytes: this.maxResponseBytes,
    })) {
      const items = parser.push(frame);
      for (let i = 0; i < items.length; i++) yield items[i]!;
      if (parser.done) return;
    }
    if (call.signal.aborted) throw abortedError(call.signal, this.streamName);
    yield* parser.end();
  }
}
