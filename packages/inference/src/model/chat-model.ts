import type { Clock } from "../clock/clock.js";
import type { ModelProfile } from "./model-profile.js";
import type { ModelRequest } from "./model-request.js";
import type { ModelResponse } from "./model-response.js";
import type { ModelStreamItem } from "./stream-item.js";

/** Per-call options every model receives. */
export interface ModelCallOptions<State = unknown> {
  /** The caller's state (agents may let models read it; providers ignore it). */
  state?: State;
  /** Aborts the call. Adapters must pass it to `fetch` and stop reading the stream. */
  signal?: AbortSignal;
  /** Time source for anything the model does with time (mocks, backoff). */
  clock?: Clock;
}

/**
 * A provider-neutral chat model.
 *
 * Contract:
 * - `invoke` returns one complete response or throws a `TinyAgentsError` (provider failures as
 *   `ProviderError`, with usage normalized as documented on `Usage`).
 * - `stream`, when present, yields `ModelStreamItem`s that a `StreamAccumulator` rebuilds into
 *   the same response `invoke` would return. Without it, callers use `streamFromResponse`.
 * - Both honour `options.signal`.
 */
export interface ChatModel<State = unknown> {
  /** Provider name, for example `openai`, `anthropic`, `ollama`, `mock`. */
  readonly provider: string;
  /** The provider's model id, for example `gpt-4.1-mini`. */
  readonly modelId: string;
  readonly profile?: ModelProfile;
  /**
   * Identifies everything that changes what the model returns for a request (provider, model,
   * endpoint): the key space of the local response cache. Never contains secrets.
   */
  readonly cacheIdentity?: string;
  /**
   * The base URL the model talks to, without credentials or secret query values: traces report
   * it as `server.address` / `server.port`. Omitted by models without a network endpoint.
   */
  readonly endpoint?: string;
  invoke(request: ModelRequest, options?: ModelCallOptions<State>): Promise<ModelResponse>;
  stream?(request: ModelRequest, options?: ModelCallOptions<State>): AsyncIterable<ModelStreamItem>;
}

/**
 * A {@link ChatModel} whose `stream` is always there: what every built-in adapter (`OpenAiChatModel`,
 * `AnthropicModel`, `OllamaModel`, `MockModel`) and `createModel` / `fromEnv` return, so
 * `model.stream(request)` type-checks on them without a guard. Your own models may implement
 * plain `ChatModel` (the harness falls back to `streamFromResponse`).
 */
export interface StreamingChatModel<State = unknown> extends ChatModel<State> {
  stream(request: ModelRequest, options?: ModelCallOptions<State>): AsyncIterable<ModelStreamItem>;
}
