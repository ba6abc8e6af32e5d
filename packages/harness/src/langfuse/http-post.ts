import {
  abortedError,
  classifyNetworkError,
  ProviderError,
  parseRetryAfter,
  redactSecrets,
} from "@tinyagents/inference";

/** One JSON POST to a telemetry endpoint. */
export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Bounds the whole exchange (connect, send, read the answer). */
  timeoutMs: number;
  fetch: typeof fetch;
  signal?: AbortSignal;
  /** What is being sent, for messages (`"Langfuse OTLP export"`). */
  what: string;
  /** Values that must never appear in an error (keys, tokens): scrubbed from echoed bodies. */
  secrets: readonly string[];
}

/** The answer to a {@link PostRequest}. */
export interface PostResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * POST once (never retried here), with a timeout and the caller's abort signal. Network
 * failures and timeouts become a `ProviderError` (code `provider`, `provider: "langfuse"`) whose
 * `retryable` says whether trying again later can help; an abort becomes a `cancelled` error.
 * No timer or listener outlives the call.
 */
export async function postJson(request: PostRequest): Promise<PostResponse> {
  const { signal } = request;
  if (signal?.aborted) throw abortedError(signal, request.what);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const response = await request.fetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, text };
  } catch (error) {
    if (signal?.aborted) throw abortedError(signal, request.what);
    const where = origin(request.url);
    if (timedOut) {
      throw new ProviderError({
        provider: "langfuse",
        kind: "retryable",
        message: `${request.what} to ${where} timed out after ${request.timeoutMs} ms; the server is slow or unreachable. Nothing was retried: raise timeoutMs or send again later.`,
      });
    }
    throw new ProviderError({
      provider: "langfuse",
      kind: classifyNetworkError(error),
      message: `${request.what} could not reach ${where}: ${redactSecrets(describeError(error), request.secrets)}. Check the URL and that the server is up; nothing was retried.`,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The error for a non-success HTTP status: what happened, what to do, the (scrubbed, truncated)
 * body, and `retryable` / `retryAfterMs` for 429 and 5xx. `context` is appended to the message
 * (e.g. which request of several failed).
 */
export function httpFailure(request: PostRequest, response: PostResponse, context = ""): ProviderError {
  const { status } = response;
  const where = `${origin(request.url)}${new URL(request.url).pathname}`;
  const body = redactSecrets(response.text, request.secrets);
  const snippet = body.trim() === "" ? "" : ` Server said: ${truncate(body.trim(), 300)}`;
  let kind: ConstructorParameters<typeof ProviderError>[0]["kind"] = "non_retryable";
  let advice: string;
  if (status === 401 || status === 403) {
    advice =
      "the credentials were rejected: check the public and secret key (project keys, not organization keys) or the proxy token";
  } else if (status === 404) {
    advice =
      "the endpoint does not exist: check the base URL, or whether this server supports the chosen transport (`otlp` or `ingestion`)";
  } else if (status === 413) {
    advice = "the request is too large: lower maxRequestBytes";
  } else if (status === 429) {
    kind = "rate_limited";
    advice = "rate limited: send again later";
  } else if (status >= 500) {
    kind = "upstream_unhealthy";
    advice = "the server failed: send again later";
  } else {
    advice = "the server refused the request";
  }
  const retryAfterMs =
    status === 429 || status === 503 ? parseRetryAfter(response.headers, Date.now()) : undefined;
  return new ProviderError({
    provider: "langfuse",
    kind,
    status,
    message: `${request.what} to ${where} failed with HTTP ${status}: ${advice}.${context}${snippet}`,
    rawBody: truncate(body, 4000),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** `scheme://host[:port]` of a URL (never its path, query or credentials). */
export function origin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code =
    typeof cause === "object" && cause !== null && "code" in cause
      ? String((cause as { code: unknown }).code)
      : "";
  return code === "" ? error.message : `${error.message} (${code})`;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
