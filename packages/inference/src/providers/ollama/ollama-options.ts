import { checkBaseUrl } from "../../http/base-url.js";
import { type CallBoundSettings, resolveCallBounds } from "../../http/call-bounds.js";
import type { FetchLike } from "../../http/fetch-types.js";
import { resolveMaxResponseBytes } from "../../http/response-limit.js";
import type { JsonObject } from "../../json/json-value.js";
import type { ModelProfile } from "../../model/model-profile.js";
import { ollamaBaseUrlFromHost } from "./host.js";

/** Model used when neither `model` nor `OLLAMA_MODEL` says otherwise. */
export const DEFAULT_OLLAMA_MODEL = "llama3.2";

/** Options of {@link OllamaModel}. Every field is optional; see each for its default. */
export interface OllamaModelOptions {
  /** Model name (`name:tag`). Default: env `OLLAMA_MODEL`, else {@link DEFAULT_OLLAMA_MODEL}. */
  model?: string;
  /**
   * Server origin (the adapter appends `/api/chat`). Default: env `OLLAMA_HOST` read with Ollama's
   * own rules (see `ollamaBaseUrlFromHost`), else `http://127.0.0.1:11434`.
   */
  baseUrl?: string;
  /** `keep_alive` sent with every request (`"10m"`, seconds, `0` to unload); `providerOptions.keep_alive` wins. */
  keepAlive?: string | number;
  /** Default Modelfile `options` (`num_ctx`, `top_k`, ...); request fields and `providerOptions.options` win. */
  options?: JsonObject;
  /** The fetch to call (default: the platform `fetch`). */
  fetch?: FetchLike;
  /** Extra headers on every request (for example `authorization` for a proxied or hosted server). */
  headers?: Record<string, string>;
  /** Static facts about the model (context window, capabilities). Default: none (assumed capable). */
  profile?: ModelProfile;
  /** Where to read the environment variables (default `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * Bound on a whole call (headers and body), on the call's clock: a `timeout` error
   * (`details.limit: "model_call_timeout"`). Default `DEFAULT_CALL_TIMEOUT_MS` (10 min); `0` or
   * `Infinity` removes it; `request.timeoutMs` overrides it per call.
   */
  timeoutMs?: number;
  /**
   * Wait for the response headers of a streamed call: a `timeout` error (`details.limit:
   * "headers_timeout"`). Default `DEFAULT_HEADERS_TIMEOUT_MS` (60 s); `0` or `Infinity` removes
   * it; `request.headersTimeoutMs` overrides it per call.
   */
  headersTimeoutMs?: number;
  /**
   * Fail a streamed response that makes no progress (no event or line with data; blank lines, keep-alives and bytes of an unfinished event do not count)
   * for this many ms, from the headers on (so a long prompt evaluation on slow
   * hardware before the first token counts: raise it for big local prompts), with a `timeout` error (`details.limit:
   * "stream_idle_timeout"`). Default `DEFAULT_STREAM_IDLE_TIMEOUT_MS` (240 s); `0` or `Infinity`
   * disables it; `request.streamIdleTimeoutMs` overrides it per call.
   */
  streamIdleTimeoutMs?: number;
  /**
   * Total byte cap of one response body: a longer stream or JSON body fails with a non-retryable
   * `response_too_large` and the rest is cancelled unread. Default: `MAX_STREAM_BYTES` (48 MiB)
   * for a stream, `MAX_BODY_BYTES` (32 MiB) for a JSON body; `Infinity` disables it.
   */
  maxResponseBytes?: number | undefined;
}

/** Options with every default applied. */
export interface ResolvedOllamaOptions {
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  profile: ModelProfile | undefined;
  keepAlive: string | number | undefined;
  options: JsonObject | undefined;
  /** The stream idle timeout in ms (0 or Infinity: none). */
  streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) with defaults applied. */
  bounds: CallBoundSettings;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  maxResponseBytes: number | undefined;
}

/**
 * Apply defaults and environment variables. Throws a `validation` error for a malformed base URL
 * or a negative / non-numeric `streamIdleTimeoutMs`.
 */
export function resolveOllamaOptions(options: OllamaModelOptions): ResolvedOllamaOptions {
  const env = options.env ?? globalThis.process?.env ?? {};
  const explicit = options.baseUrl?.trim();
  const baseUrl = checkBaseUrl(
    explicit === undefined || explicit === "" ? ollamaBaseUrlFromHost(env.OLLAMA_HOST) : explicit,
    explicit === undefined || explicit === "" ? "OllamaModel (from OLLAMA_HOST)" : "OllamaModel",
  );
  const model = options.model?.trim() || env.OLLAMA_MODEL?.trim() || DEFAULT_OLLAMA_MODEL;
  const bounds = resolveCallBounds(options, "OllamaModel");
  return {
    baseUrl,
    model,
    headers: { ...options.headers },
    fetch: options.fetch,
    profile: options.profile,
    keepAlive: options.keepAlive,
    options: options.options,
    streamIdleTimeoutMs: bounds.streamIdleTimeoutMs,
    bounds,
    maxResponseBytes: resolveMaxResponseBytes(options.maxResponseBytes, "OllamaModel"),
  };
}
