import { validationError } from "../../errors/tinyagents-error.js";
import { checkBaseUrl } from "../../http/base-url.js";
import { type CallBoundSettings, resolveCallBounds } from "../../http/call-bounds.js";
import type { FetchLike } from "../../http/fetch-types.js";
import { resolveMaxResponseBytes } from "../../http/response-limit.js";
import type { ModelProfile } from "../../model/model-profile.js";

/** Default API origin (the adapter appends `/v1/messages`). */
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
/** The `anthropic-version` header value the official SDK pins. */
export const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";
/** Model used when neither `model` nor `ANTHROPIC_MODEL` says otherwise. */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-6";
/** `max_tokens` when neither the request nor the options set one (the API requires a value). */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/** Options of {@link AnthropicModel}. Every field is optional; see each for its default. */
export interface AnthropicModelOptions {
  /** API key sent as `x-api-key`. Default: env `ANTHROPIC_API_KEY`. Not needed when `headers` carries `authorization`. */
  apiKey?: string;
  /** API origin without `/v1`. Default: env `ANTHROPIC_BASE_URL`, else {@link DEFAULT_ANTHROPIC_BASE_URL}. */
  baseUrl?: string;
  /** Model id. Default: env `ANTHROPIC_MODEL`, else {@link DEFAULT_ANTHROPIC_MODEL}. */
  model?: string;
  /** `max_tokens` for requests without `maxTokens`. Default {@link DEFAULT_ANTHROPIC_MAX_TOKENS}. */
  maxTokens?: number;
  /** The fetch to call (default: the platform `fetch`). */
  fetch?: FetchLike;
  /** Extra headers on every request (for example `anthropic-beta`); they win over the defaults. */
  headers?: Record<string, string>;
  /** `anthropic-version` header. Default {@link DEFAULT_ANTHROPIC_VERSION}. */
  anthropicVersion?: string;
  /** Static facts about the model (context window, capabilities). */
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
   * Fail a streamed response that makes no progress (no event or line with data; `ping` events, keep-alives and bytes of an unfinished event do not count)
   * for this many ms, from the headers on, with a `timeout` error (`details.limit:
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
export interface ResolvedAnthropicOptions {
  baseUrl: string;
  model: string;
  maxTokens: number;
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  profile: ModelProfile | undefined;
  /** The stream idle timeout in ms (0 or Infinity: none). */
  streamIdleTimeoutMs: number;
  /** The call bounds (total, headers, stream idle) with defaults applied. */
  bounds: CallBoundSettings;
  /** The total byte cap of a response body (`undefined`: the defaults). */
  maxResponseBytes: number | undefined;
}

/**
 * Apply defaults and environment variables. Throws a `validation` error when there is no API
 * key (naming `ANTHROPIC_API_KEY`), when `maxTokens` is not a positive integer or when
 * `streamIdleTimeoutMs` is negative or not a number.
 */
export function resolveAnthropicOptions(options: AnthropicModelOptions): ResolvedAnthropicOptions {
  const env = options.env ?? globalThis.process?.env ?? {};
  const extra = options.headers ?? {};
  const hasAuthorization = Object.keys(extra).some((name) => name.toLowerCase() === "authorization");
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY);
  if (apiKey === undefined && !hasAuthorization) {
    throw validationError(
      "AnthropicModel needs an API key: set the ANTHROPIC_API_KEY environment variable or pass { apiKey } to new AnthropicModel(...)",
      { field: "apiKey", env: "ANTHROPIC_API_KEY" },
    );
  }
  const maxTokens = options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw validationError(`AnthropicModel maxTokens must be a positive integer (got ${maxTokens})`, {
      field: "maxTokens",
    });
  }
  const headers: Record<string, string> = {
    "anthropic-version": options.anthropicVersion ?? DEFAULT_ANTHROPIC_VERSION,
  };
  if (apiKey !== undefined) headers["x-api-key"] = apiKey;
  const baseUrl = nonEmpty(options.baseUrl) ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? DEFAULT_ANTHROPIC_BASE_URL;
  const bounds = resolveCallBounds(options, "AnthropicModel");
  return {
    baseUrl: checkBaseUrl(baseUrl, "AnthropicModel"),
    model: nonEmpty(options.model) ?? nonEmpty(env.ANTHROPIC_MODEL) ?? DEFAULT_ANTHROPIC_MODEL,
    maxTokens,
    headers: { ...headers, ...extra },
    fetch: options.fetch,
    profile: options.profile,
    streamIdleTimeoutMs: bounds.streamIdleTimeoutMs,
    bounds,
    maxResponseBytes: resolveMaxResponseBytes(options.maxResponseBytes, "AnthropicModel"),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
