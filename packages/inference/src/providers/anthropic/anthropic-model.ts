import { NativeChatModel } from "../../http/native-chat-model.js";
import type { SseEvent } from "../../http/sse.js";
import { SSE_FRAMING } from "../../http/stream-framing.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import { type ModelProfile, permissiveProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
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
export class AnthropicModel extends NativeChatModel<SseEvent> {
  declare readonly provider: typeof PROVIDER;
  readonly profile: ModelProfile;
  private readonly maxTokens: number;

  constructor(options: AnthropicModelOptions = {}) {
    const resolved = resolveAnthropicOptions(options);
    super({
      ...resolved,
      className: "AnthropicModel",
      provider: PROVIDER,
      path: "/v1/messages",
      identityPrefix: PROVIDER,
      framing: SSE_FRAMING,
      streamName: "anthropic stream",
    });
    this.profile = resolved.profile ?? permissiveProfile();
    this.maxTokens = resolved.maxTokens;
  }

  /** The JSON body `invoke` (`stream: false`) or `stream` (`stream: true`) sends for `request`. */
  buildRequestBody(request: ModelRequest, stream: boolean): JsonObject {
    return toAnthropicRequest(request, { model: this.modelId, defaultMaxTokens: this.maxTokens, stream });
  }

  protected parseBody(body: JsonValue): ModelResponse {
    return parseAnthropicResponse(body, this.modelId);
  }

  protected streamParser(): AnthropicStreamParser {
    return new AnthropicStreamParser();
  }
}
