import { validationError } from "../errors/tinyagents-error.js";
import { CallBounds, DEFAULT_CALL_TIMEOUT_MS } from "../http/call-bounds.js";
import type { ModelCallOptions, StreamingChatModel } from "../model/chat-model.js";
import { type ModelProfile, permissiveProfile } from "../model/model-profile.js";
import type { ModelRequest } from "../model/model-request.js";
import type { ModelResponse } from "../model/model-response.js";
import { collectStream } from "../model/stream-accumulator.js";
import type { ModelStreamItem } from "../model/stream-item.js";
import type { AiSdkCallOptions, AiSdkLanguageModel } from "./ai-sdk-types.js";
import { aiSdkError } from "./map-error.js";
import { toAiSdkCallOptions } from "./map-prompt.js";
import { AiSdkPartTranslator } from "./stream-parts.js";

/** Options of {@link fromAiSdk}. */
export interface FromAiSdkOptions {
  /**
   * The provider name errors, usage, pricing and traces report. Default: the AI SDK model's
   * provider up to the first dot (`anthropic.messages` -> `anthropic`, `google.generative-ai` ->
   * `google`, `deepseek.chat` -> `deepseek`), which is what the pricing catalog is keyed by.
   */
  provider?: string | undefined;
  /** Static model facts (context window, capabilities). */
  profile?: ModelProfile | undefined;
}

/** The AI SDK specification versions the bridge reads. */
export const AI_SDK_SPECIFICATION_VERSIONS: readonly string[] = ["v2", "v3"];

/**
 * Wrap any AI SDK language model (`LanguageModelV3` from `@ai-sdk/*` 3.x / AI SDK 6, or
 * `LanguageModelV2` from AI SDK 5) as a tinyagents {@link StreamingChatModel}: Gemini, Vertex,
 * Bedrock, Azure, Anthropic, OpenAI and every other AI SDK provider package become usable by the
 * harness with one call.
 *
 * `invoke` calls `doGenerate`, `stream` calls `doStream`; both give the same response (the
 * generate result is translated into the stream items a stream would send). Messages, tools,
 * tool choice, response format, sampling and reasoning settings are mapped as documented on
 * `toAiSdkCallOptions`; reasoning keeps its provider metadata (signatures) across turns; usage
 * includes cache and reasoning tokens; errors are classified with retry hints (`APICallError`
 * status, body and `retry-after` headers); `options.signal` and `request.timeoutMs` (default
 * `DEFAULT_CALL_TIMEOUT_MS`, as the HTTP adapters) abort the call (`cancelled` / `timeout`).
 *
 * Throws a `validation` error when `model` is not an AI SDK language model of a supported
 * specification version.
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): AiSdkChatModel {
  return new AiSdkChatModel(model, options);
}

/** The {@link StreamingChatModel} {@link fromAiSdk} returns. */
export class AiSdkChatModel implements StreamingChatModel {
  readonly provider: string;
  readonly modelId: string;
  readonly profile: ModelProfile;
  /** `ai-sdk:<AI SDK provider>:<model id>`. */
  readonly cacheIdentity: string;
  /** The wrapped AI SDK model. */
  readonly model: AiSdkLanguageModel;

  constructor(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}) {
    if (
      typeof model !== "object" ||
      model === null ||
      typeof model.doGenerate !== "function" ||
      typeof model.doStream !== "function"
    ) {
      throw validationError(
        "fromAiSdk: expected an AI SDK language model (for example anthropic('claude-sonnet-4-5') from @ai-sdk/anthropic), got an object without doGenerate/doStream",
        { field: "model" },
      );
    }
    if (!AI_SDK_SPECIFICATION_VERSIONS.includes(model.specificationVersion)) {
      throw validationError(
        `fromAiSdk: the model implements AI SDK specification "${String(model.specificationVersion)}"; this bridge reads ${AI_SDK_SPECIFICATION_VERSIONS.join(" and ")} (@ai-sdk/* provider packages 2.x and 3.x)`,
        { field: "model.specificationVersion" },
      );
    }
    this.model = model;
    this.modelId = model.modelId;
    this.provider = options.provider ?? (model.provider.split(".")[0] || model.provider);
    this.profile = options.profile ?? permissiveProfile();
    this.cacheIdentity = `ai-sdk:${model.provider}:${model.modelId}`;
  }

  /** The call's abort signal: the caller's, plus the total time bound, on the call's clock. */
  private startCall(request: ModelRequest, options: ModelCallOptions): CallBounds {
    return new CallBounds({
      signal: options.signal,
      clock: options.clock,
      bounds: bridgeBounds(request),
      streaming: false,
      provider: this.provider,
      model: this.modelId,
    });
  }

  /** The AI SDK call options `invoke` / `stream` pass for `request` (without the abort signal). */
  buildCallOptions(request: ModelRequest): AiSdkCallOptions {
    return toAiSdkCallOptions(request, {
      family: this.provider,
      specificationVersion: this.model.specificationVersion,
    });
  }

  async invoke(request: ModelRequest, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const call = this.startCall(request, options);
    const context = { provider: this.provider, model: this.modelId, signal: call.signal };
    try {
      const callOptions = this.buildCallOptions(request);
      callOptions.abortSignal = call.signal;
      const result = await callModel(this.model, "doGenerate", callOptions);
      const items = new AiSdkPartTranslator(context).generated(result);
      return await collectStream(items, { provider: this.provider, model: this.modelId });
    } catch (error) {
      throw aiSdkError(error, context);
    } finally {
      call.dispose();
    }
  }

  async *stream(request: ModelRequest, options: ModelCallOptions = {}): AsyncGenerator<ModelStreamItem> {
    const call = this.startCall(request, options);
    const context = { provider: this.provider, model: this.modelId, signal: call.signal };
    let reader: ReadableStreamDefaultReader<unknown> | undefined;
    try {
      const callOptions = this.buildCallOptions(request);
      callOptions.abortSignal = call.signal;
      const { stream } = await callModel(this.model, "doStream", callOptions);
      const parts = stream.getReader();
      reader = parts;
      const translator = new AiSdkPartTranslator(context);
      while (true) {
        const { done, value } = await parts.read();
        if (done) break;
        const items = translator.push(value);
        for (const item of items) yield item;
        if (translator.done) return;
      }
      if (call.signal.aborted) throw call.signal.reason;
      yield* translator.end();
    } catch (error) {
      throw aiSdkError(error, context);
    } finally {
      // Stop the provider's stream when the consumer leaves early (break, abort, error).
      reader?.cancel().catch(() => undefined);
      call.dispose();
    }
  }
}

/** How long a bridged call may take: `request.timeoutMs`, else the HTTP adapters' default total. */
function bridgeBounds(request: ModelRequest) {
  // The AI SDK owns the HTTP exchange, so only the total bound applies (no headers / idle bounds).
  return {
    timeoutMs: request.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    headersTimeoutMs: 0,
    streamIdleTimeoutMs: 0,
  };
}

/** Call `doGenerate` / `doStream` with the options the bridge built (see `AiSdkLanguageModel`). */
function callModel<M extends "doGenerate" | "doStream">(
  model: AiSdkLanguageModel,
  method: M,
  options: AiSdkCallOptions,
): ReturnType<AiSdkLanguageModel[M]> {
  const call = model[method] as (
    this: AiSdkLanguageModel,
    options: AiSdkCallOptions,
  ) => ReturnType<AiSdkLanguageModel[M]>;
  return call.call(model, options);
}
