import { classifyNetworkError } from "../errors/classify.js";
import { abortedError } from "../errors/normalize.js";
import { ProviderError } from "../errors/provider-error.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { type ErrorBodyFacts, errorBodyFacts, factsFromObject } from "../http/error-body.js";
import { parseGoDuration } from "../http/go-duration.js";
import { providerErrorFromFacts } from "../http/provider-error-from-response.js";
import type { JsonObject } from "../json/json-value.js";
import { isRecord } from "./reasoning-metadata.js";

/** Who failed, for the error. */
export interface AiSdkErrorContext {
  provider: string;
  model: string;
  signal?: AbortSignal | undefined;
}

/**
 * Turn whatever an AI SDK model threw (or sent as a stream `error` part) into a classified
 * `TinyAgentsError`:
 * - the call's signal aborted -> its `cancelled` / `timeout` error;
 * - an `APICallError` with a status -> a `ProviderError` classified from the status and the
 *   response body (code, type, message: context overflow, quota, rate limit, overload), with
 *   `retryAfterMs` from the response headers (`retry-after`, `retry-after-ms`,
 *   `x-ratelimit-reset-*`) or a "try again in ..." phrase, `x-should-retry` honoured;
 * - an `APICallError` without a status (the request never got an answer) -> a network error
 *   classified from its cause (retryable for resets and refused connections);
 * - an error object a provider streamed (`{type:"error", error:{type, message}}`) -> classified
 *   like an HTTP error body;
 * - anything else (invalid response data, JSON parse errors) -> a non-retryable `ProviderError`
 *   (`malformed_response`) keeping the original as `cause`.
 */
export function aiSdkError(error: unknown, context: AiSdkErrorContext): TinyAgentsError {
  if (context.signal?.aborted === true) return abortedError(context.signal, `${context.provider} call`);
  if (error instanceof TinyAgentsError) return error;
  const facts = { provider: context.provider, model: context.model };
  if (isApiCallError(error)) {
    if (error.statusCode === undefined) {
      return new ProviderError({
        ...facts,
        kind: error.isRetryable === false ? "non_retryable" : classifyNetworkError(error.cause ?? error),
        message: `${context.provider}: could not reach ${error.url ?? "the provider"} (${error.message})`,
        cause: error,
      });
    }
    if (error.statusCode >= 200 && error.statusCode < 300) {
      // A 2xx the AI SDK could not read (its schema rejected the body): not an HTTP failure.
      return new ProviderError({
        ...facts,
        kind: "non_retryable",
        providerCode: "malformed_response",
        message: `${context.provider}: the AI SDK provider could not read the ${error.statusCode} response (${describe(error)}); check the base URL and the provider package version`,
        ...(error.responseBody === undefined ? {} : { rawBody: error.responseBody.slice(0, 2000) }),
        cause: error,
      });
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(error.responseHeaders ?? {})) {
      if (typeof value === "string") headers.set(name, value);
    }
    const body = error.responseBody ?? "";
    const parsed = errorBodyFacts(body);
    if (parsed.message === undefined) parsed.message = error.message;
    googleFacts(body, parsed, headers);
    return providerErrorFromFacts(parsed, {
      ...facts,
      status: error.statusCode,
      headers,
      rawBody: body,
      cause: error,
    });
  }
  if (isRecord(error) && !(error instanceof Error)) {
    // A provider's in-stream error event, passed through as data.
    const parsed = factsFromObject(error as JsonObject);
    if (parsed.message === undefined) parsed.message = JSON.stringify(error).slice(0, 500);
    return providerErrorFromFacts(parsed, { ...facts, rawBody: JSON.stringify(error) });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError({
    ...facts,
    kind: "non_retryable",
    providerCode: "malformed_response",
    message: `${context.provider}: the AI SDK model failed: ${message}`,
    cause: error,
  });
}

/** The error's message plus its cause's (the AI SDK puts the schema problem in the cause). */
function describe(error: ApiCallErrorShape): string {
  const cause = error.cause instanceof Error ? `: ${error.cause.message.split("\n")[0]}` : "";
  return `${error.message}${cause}`;
}

/**
 * Google's error body (`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{RetryInfo
 * retryDelay:"7s"}]}}`): its `status` is the error type, and `RetryInfo.retryDelay` says how long
 * to wait when no `retry-after` header does.
 */
function googleFacts(body: string, facts: ErrorBodyFacts, headers: Headers): void {
  if (!body.trimStart().startsWith("{")) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return;
  }
  const error = isRecord(parsed) && isRecord(parsed.error) ? parsed.error : undefined;
  if (error === undefined) return;
  if (typeof error.status === "string" && facts.type === undefined) facts.type = error.status;
  if (headers.has("retry-after") || headers.has("retry-after-ms") || !Array.isArray(error.details)) return;
  for (const detail of error.details) {
    if (isRecord(detail) && typeof detail.retryDelay === "string") {
      const ms = parseGoDuration(detail.retryDelay);
      if (ms !== undefined) headers.set("retry-after-ms", String(ms));
    }
  }
}

interface ApiCallErrorShape {
  message: string;
  url?: string;
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  isRetryable?: boolean;
  cause?: unknown;
}

/** `APICallError` by shape (no runtime import of `@ai-sdk/provider`, which may be another copy). */
function isApiCallError(error: unknown): error is ApiCallErrorShape {
  if (!(error instanceof Error)) return false;
  const e = error as Error & Partial<ApiCallErrorShape>;
  return e.name === "AI_APICallError" || ("requestBodyValues" in e && "isRetryable" in e);
}
