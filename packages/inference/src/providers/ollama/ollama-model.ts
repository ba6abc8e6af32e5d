import { NativeChatModel } from "../../http/native-chat-model.js";
import { NDJSON_FRAMING } from "../../http/stream-framing.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import type { ModelProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
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
export class OllamaModel extends NativeChatModel<JsonValue> {
  declare readonly provider: typeof PROVIDER;
  readonly profile?: ModelProfile;
  private readonly settings: ResolvedOllamaOptions;

  constructor(options: OllamaModelOptions = {}) {
    const resolved = resolveOllamaOptions(options);
    super({
      ...resolved,
      className: "OllamaModel",
      provider: PROVIDER,
      path: "/api/chat",
      identityPrefix: PROVIDER,
      framing: NDJSON_FRAMING,
      streamName: "ollama stream",
    });
    this.settings = resolved;
    if (resolved.profile !== undefined) this.profile = resolved.profile;
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

  // Synthesized tool-call ids are salted with the number of messages, the same on both paths.
  protected parseBody(body: JsonValue, request: ModelRequest): ModelResponse {
    return parseOllamaResponse(body, this.modelId, request.messages.length);
  }

  protected streamParser(request: ModelRequest): OllamaStreamParser {
    return new OllamaStreamParser(request.messages.length);
  }
}
