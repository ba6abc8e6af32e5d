import { NativeChatModel } from "../../http/native-chat-model.js";
import type { SseEvent } from "../../http/sse.js";
import { SSE_FRAMING } from "../../http/stream-framing.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import { type ModelProfile, permissiveProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
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
export class OpenAiResponsesModel extends NativeChatModel<SseEvent> {
  readonly profile: ModelProfile;
  private readonly store: boolean | undefined;
  private readonly include: readonly string[];

  constructor(options: OpenAiResponsesModelOptions) {
    const resolved = resolveResponsesOptions(options);
    super({
      ...resolved,
      className: "OpenAiResponsesModel",
      path: "/responses",
      identityPrefix: "openai-responses",
      framing: SSE_FRAMING,
      streamName: `${resolved.provider} responses stream`,
    });
    this.profile = resolved.profile ?? permissiveProfile();
    this.store = resolved.store;
    this.include = resolved.include;
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

  protected parseBody(body: JsonValue): ModelResponse {
    return parseResponsesBody(body, this.parseContext);
  }

  protected streamParser(): ResponsesStreamParser {
    return new ResponsesStreamParser(this.parseContext);
  }

  private get parseContext(): ResponsesParseContext {
    return { provider: this.provider, model: this.modelId, secrets: this.secrets };
  }
}
