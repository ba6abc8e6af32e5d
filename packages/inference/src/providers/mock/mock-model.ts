import { abortedError } from "../../errors/normalize.js";
import { ProviderError } from "../../errors/provider-error.js";
import { TinyAgentsError } from "../../errors/tinyagents-error.js";
import type { JsonObject } from "../../json/json-value.js";
import { text } from "../../message/constructors.js";
import type { ModelCallOptions, StreamingChatModel } from "../../model/chat-model.js";
import { type ModelProfile, permissiveProfile } from "../../model/model-profile.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { collectStream } from "../../model/stream-accumulator.js";
import { responseToStreamItems } from "../../model/stream-from-response.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { defaultTokenCounter } from "../../tokens/char-estimator.js";
import type { TokenCounter } from "../../tokens/token-counter.js";
import { type Usage, usage } from "../../usage/usage.js";

/** Options shared by every MockModel constructor. */
export interface MockModelOptions {
  /** `modelId` (default `"mock"`). */
  modelId?: string;
  profile?: ModelProfile;
  /** Source of the synthetic usage (default: the shared character estimator). */
  tokenCounter?: TokenCounter;
}

/** Options of {@link MockModel.scripted}. */
export interface ScriptedMockOptions extends MockModelOptions {
  /** Start again from the first response when the script runs out (default false: throw). */
  cycle?: boolean;
}

type Behaviour =
  | { kind: "echo" }
  | { kind: "constant"; text: string }
  | { kind: "scripted"; responses: Array<ModelResponse | string>; cycle: boolean }
  | { kind: "tool_call"; name: string; args: JsonObject }
  | { kind: "stream_script"; items: ModelStreamItem[] };

/**
 * A deterministic, offline {@link ChatModel} for tests and demos (`provider` `"mock"`).
 * Build one with a static constructor. Every call is recorded in {@link requests}. Usage is
 * synthetic: input = `countMessages(request.messages)`, output = `countText(reply)` (for a tool
 * call: name + JSON arguments). An aborted `options.signal` throws a `cancelled` (or `timeout`)
 * `TinyAgentsError`. `stream` yields the same response `invoke` returns, with the text split in
 * two deltas (a streaming script yields its items verbatim instead).
 */
export class MockModel implements StreamingChatModel {
  readonly provider = "mock";
  readonly modelId: string;
  readonly profile: ModelProfile;
  readonly cacheIdentity: string;
  /** Every request received, in order (invoke and stream alike). */
  readonly requests: ModelRequest[] = [];
  private readonly behaviour: Behaviour;
  private readonly counter: TokenCounter;

  private constructor(behaviour: Behaviour, options: MockModelOptions) {
    this.behaviour = behaviour;
    this.modelId = options.modelId ?? "mock";
    this.profile = options.profile ?? permissiveProfile();
    this.counter = options.tokenCounter ?? defaultTokenCounter;
    this.cacheIdentity = `mock:${this.modelId}`;
  }

  /** Replies with the text of the last user message. */
  static echo(options: MockModelOptions = {}): MockModel {
    return new MockModel({ kind: "echo" }, options);
  }

  /** Always replies with `text`. */
  static constant(text: string, options: MockModelOptions = {}): MockModel {
    return new MockModel({ kind: "constant", text }, options);
  }

  /**
   * Replies with the scripted responses in order (a string is a plain text reply). A response
   * without `usage` gets synthetic usage; one without `finishReason` gets `stop`/`tool_calls`.
   * When the script runs out it throws a non-retryable `ProviderError` ("MockModel script
   * exhausted after N calls"), unless `cycle` is set.
   */
  static scripted(responses: Array<ModelResponse | string>, options: ScriptedMockOptions = {}): MockModel {
    return new MockModel(
      { kind: "scripted", responses: [...responses], cycle: options.cycle ?? false },
      options,
    );
  }

  /** Always answers with one call of tool `name` with `args`; ids are `mock-call-1`, `mock-call-2`, ... */
  static toolCall(name: string, args: JsonObject = {}, options: MockModelOptions = {}): MockModel {
    return new MockModel({ kind: "tool_call", name, args }, options);
  }

  /**
   * `stream` yields `items` verbatim on every call (error items included); `invoke` returns
   * their accumulation (throwing the `ProviderError` of an error item). No synthetic usage.
   */
  static streamingScript(items: ModelStreamItem[], options: MockModelOptions = {}): MockModel {
    return new MockModel({ kind: "stream_script", items: [...items] }, options);
  }

  /** How many calls (invoke or stream) this model has received. */
  get calls(): number {
    return this.requests.length;
  }

  async invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    if (options.signal?.aborted) throw abortedError(options.signal, "MockModel call");
    this.requests.push(request);
    if (this.behaviour.kind === "stream_script") {
      return collectStream(this.behaviour.items, { provider: this.provider, model: this.modelId });
    }
    return this.respond(request);
  }

  async *stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncGenerator<ModelStreamItem> {
    const { signal } = options;
    if (signal?.aborted) throw abortedError(signal, "MockModel call");
    this.requests.push(request);
    const items =
      this.behaviour.kind === "stream_script"
        ? this.behaviour.items
        : splitText(responseToStreamItems(this.respond(request)));
    for (const item of items) {
      if (signal?.aborted) throw abortedError(signal, "MockModel stream");
      yield item;
    }
  }

  /** The response for call number `this.calls` (already recorded). */
  private respond(request: ModelRequest): ModelResponse {
    const b = this.behaviour;
    const n = this.requests.length;
    switch (b.kind) {
      case "echo": {
        const lastUser = request.messages.findLast((m) => m.role === "user");
        return this.textResponse(request, text(lastUser));
      }
      case "constant":
        return this.textResponse(request, b.text);
      case "tool_call": {
        const call = { id: `mock-call-${n}`, name: b.name, arguments: structuredClone(b.args) };
        return {
          message: { role: "assistant", content: [], toolCalls: [call] },
          usage: this.usage(request, b.name + JSON.stringify(b.args)),
          finishReason: "tool_calls",
        };
      }
      case "scripted": {
        const index = b.cycle && b.responses.length > 0 ? (n - 1) % b.responses.length : n - 1;
        const entry = b.responses[index];
        if (entry === undefined) {
          throw new ProviderError({
            provider: this.provider,
            model: this.modelId,
            kind: "non_retryable",
            message: `MockModel script exhausted after ${b.responses.length} calls; script more responses or pass { cycle: true }`,
          });
        }
        if (typeof entry === "string") return this.textResponse(request, entry);
        const response = structuredClone(entry);
        response.usage ??= this.usage(request, text(response.message));
        response.finishReason ??= response.message.toolCalls.length > 0 ? "tool_calls" : "stop";
        return response;
      }
      case "stream_script":
        throw new TinyAgentsError(
          "internal",
          "MockModel: a streaming script is accumulated, not responded to",
        );
    }
  }

  private textResponse(request: ModelRequest, reply: string): ModelResponse {
    return {
      message: { role: "assistant", content: [{ type: "text", text: reply }], toolCalls: [] },
      usage: this.usage(request, reply),
      finishReason: "stop",
    };
  }

  private usage(request: ModelRequest, output: string): Usage {
    return usage({
      inputTokens: this.counter.countMessages(request.messages),
      outputTokens: this.counter.countText(output),
    });
  }
}

/** Split every text delta of two or more characters into two halves (never inside a surrogate pair). */
function splitText(items: ModelStreamItem[]): ModelStreamItem[] {
  const out: ModelStreamItem[] = [];
  for (const item of items) {
    if (item.type !== "text_delta" || item.text.length < 2) {
      out.push(item);
      continue;
    }
    let mid = Math.floor(item.text.length / 2);
    const code = item.text.charCodeAt(mid);
    if (code >= 0xdc00 && code <= 0xdfff) mid++;
    if (mid >= item.text.length) {
      out.push(item);
      continue;
    }
    out.push(
      { type: "text_delta", text: item.text.slice(0, mid) },
      { type: "text_delta", text: item.text.slice(mid) },
    );
  }
  return out;
}
