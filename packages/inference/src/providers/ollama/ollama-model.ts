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
import { readNdjson } from "../../http/ndjson.js";
import { ProviderEndpoint } from "../../http/provider-endpoint.js";
import { readJsonBody } from "../../http/read-json-body.js";
import { displayUrl } from "../../http/redact.js";
import type { JsonObject } from "../../json/json-value.js";
import type { ModelCallOptions, StreamingChatModel } from "../../model/chat-model.js";
import type { ModelProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { collectStream } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { toOllamaRequest } from "./map-request.js";
import {
  type OllamaModelOptions,
  type ResolvedOllamaOptions,
  resolveOllamaOptions,
} from "./ollama-options.js";
import { parseOllamaResponse } from "./parse-response.js";
import { OllamaStreamParser } from "./stream-parser.js";

const PROVIDER = "ollama";

/**
 * A {@link ChatModel} for Ollama's native chat API (`POST {baseUrl}/api/chat`), over the platform
 * `fetch` (injectable). `invoke` sends `stream: false` (and reads an NDJSON body too, when a proxy streams anyway);
 * `stream` reads the NDJSON stream. The
 * request is mapped as documented on `toOllamaRequest` (images as base64, `think`, `format`,
 * `options`, `keep_alive`); whole tool calls come back with their object arguments and an id
 * (Ollama's own, or a stable synthesized one); usage comes from `prompt_eval_count` /
 * `eval_count`, with the durations kept in `usage.raw`.
 *
 * Failures: non-2xx `{error: "..."}` bodies become `ProviderError`s (503 "server busy" and 500
 * retryable, 404 "model not found" not); an `{error}` line inside a 200 stream becomes an
 * `error` stream item (retryable unless the context overflowed); a stream that ends without its
 * `done` line is a retryable error. An aborted `signal` throws its `cancelled` error; the call
 * bounds (`timeoutMs`, `headersTimeoutMs`, on `options.clock`) end it with a `timeout` error; a stream that makes no progress for
 * `streamIdleTimeoutMs` fails with a `timeout` error (`details.limit: "stream_idle_timeout"`),
 * after the items that arrived before the stall.
 */
export class OllamaModel implements StreamingChatModel {
  readonly provider = PROVIDER;
  readonly modelId: string;
  readonly profile?: ModelProfile;
  /** `ollama:<origin>:<model>`. */
  readonly cacheIdentity: string;
  /** The base URL without credentials (`server.address` / `server.port` in traces). */
  readonly endpoint: string;
  private readonly settings: ResolvedOllamaOptions;
  /** The configured credentials (header values, base-URL query), masked in every error. */
  private readonly secrets: readonly string[];
  /** Posts, bounds and redacts every call (shared by the native adapters). */
  private readonly http: ProviderEndpoint;
  /** The stream idle timeout in ms (0 or Infinity: none) unless a request sets its own. */
  readonly streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) unless a request sets its own. */
  readonly bounds: Readonly<CallBoundSettings>;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  readonly maxResponseBytes: number | undefined;

  constructor(options: OllamaModelOptions = {}) {
    const resolved = resolveOllamaOptions(options);
    this.settings = resolved;
    this.secrets = secretsFromConfig({ headers: resolved.headers, baseUrl: resolved.baseUrl });
    registerSecrets(this.secrets);
    this.modelId = resolved.model;
    if (resolved.profile !== undefined) this.profile = resolved.profile;
    this.streamIdleTimeoutMs = resolved.streamIdleTimeoutMs;
    this.bounds = Object.freeze(resolved.bounds);
    this.http = new ProviderEndpoint({
      url: joinUrl(resolved.baseUrl, "/api/chat"),
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
    const { keepAlive, options } = this.settings;
    return toOllamaRequest(request, {
      model: this.modelId,
      stream,
      ...(keepAlive === undefined ? {} : { keepAlive }),
      ...(options === undefined ? {} : { options }),
    });
  }

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(
      "OllamaModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.settings.headers,
    );
  }

  /** `JSON.stringify(model)`: the same credential-free view as `util.inspect` (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(
      "OllamaModel",
      { provider: this.provider, modelId: this.modelId, endpoint: this.endpoint },
      this.settings.headers,
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
    if ((response.headers.get("content-type") ?? "").includes("ndjson")) {
      // A proxy (or an older server) that streams although `stream: false` was sent: read the
      // NDJSON lines like `stream` does and accumulate them into the same response.
      return collectStream(this.readStream(response, request, call), {
        provider: PROVIDER,
        model: this.modelId,
      });
    }
    const body = await readJsonBody(response, PROVIDER, this.modelId, call.signal, this.maxResponseBytes);
    return parseOllamaResponse(body, this.modelId, request.messages.length);
  }

  private async *streamWith(request: ModelRequest, call: CallBounds): AsyncGenerator<ModelStreamItem> {
    const response = await this.http.post(this.buildRequestBody(request, true), call);
    yield* this.readStream(response, request, call);
  }

  private async *readStream(
    response: Response,
    request: ModelRequest,
    call: CallBounds,
  ): AsyncGenerator<ModelStreamItem> {
    const parser = new OllamaStreamParser(request.messages.length);
    if (response.body === null) {
      yield* parser.end();
      return;
    }
    for await (const line of readNdjson(response.body, call.signal, {
      provider: PROVIDER,
      model: this.modelId,
      idleTimeoutMs: call.bounds.streamIdleTimeoutMs,
      clock: call.clock,
      maxBytes: this.maxResponseBytes,
    })) {
      const items = parser.push(line);
      for (let i = 0; i < items.length; i++) yield items[i]!;
      if (parser.done) return;
    }
    if (call.signal.aborted) throw abortedError(call.signal, "ollama stream");
    yield* parser.end();
  }
}
