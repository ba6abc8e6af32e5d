import { classifyNetworkError } from "../errors/classify.js";
import { abortedError } from "../errors/normalize.js";
import { ProviderError } from "../errors/provider-error.js";
import { isAborted } from "./body-reader.js";
import type { CallBounds } from "./call-bounds.js";
import type { FetchLike } from "./fetch-types.js";
import { providerErrorFromResponse } from "./provider-error-from-response.js";
import { displayUrl, redactSecrets, secretsFromHeaders } from "./redact.js";

/** One JSON POST to a provider. */
export interface PostJsonOptions {
  /** Full endpoint URL. */
  url: string;
  /** The request body; serialized with `JSON.stringify`. */
  body: unknown;
  /** Extra headers (auth, versions). `content-type: application/json` is always set. */
  headers?: Record<string, string> | undefined;
  /** The fetch to use (default: the platform `fetch`). */
  fetch?: FetchLike | undefined;
  /** Aborts the request and the body read. */
  signal?: AbortSignal | undefined;
  /**
   * The call's time bounds: its signal is used when `signal` is not given, and the headers
   * timeout stops once the response arrives. A `fetch` that ignores its signal is still cut.
   */
  bounds?: CallBounds | undefined;
  /** Provider name for errors. */
  provider: string;
  /** Model id for errors. */
  model?: string | undefined;
  /** More values to mask in errors: the model's configured credentials (`secretsFromConfig`). */
  secrets?: readonly string[] | undefined;
}

/**
 * POST `body` as JSON and return the 2xx `Response` (its body unread, for the caller to parse
 * or stream). Failures become errors a caller can act on:
 * - the caller's `signal` aborted -> the `cancelled` / `timeout` error from `abortedError`;
 * - fetch rejected (DNS, refused connection, TLS, reset, timeout) -> `ProviderError` with kind
 *   from `classifyNetworkError` and a message naming the URL ("could not reach ...");
 * - non-2xx -> `await providerErrorFromResponse(response, { provider, model })`.
 * Credentials from `headers` never appear in any message or raw body.
 */
export async function postJson(options: PostJsonOptions): Promise<Response> {
  const { url, provider, model, bounds } = options;
  const signal = options.signal ?? bounds?.signal;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  const secrets =
    options.secrets === undefined
      ? secretsFromHeaders(headers)
      : [...options.secrets, ...secretsFromHeaders(headers)];
  let payload: string;
  try {
    payload = JSON.stringify(options.body);
  } catch (error) {
    throw new ProviderError({
      provider,
      kind: "non_retryable",
      message: `${provider}: the request body could not be serialized as JSON (${String(error)}); pass plain JSON data.`,
      cause: error,
      ...(model === undefined ? {} : { model }),
    });
  }
  if (isAborted(signal)) throw abortedError(signal, `${provider} request`);
  let response: Response;
  try {
    const init: RequestInit = { method: "POST", headers, body: payload };
    if (signal !== undefined) init.signal = signal;
    response = await untilAborted(fetchFn(url, init), signal);
  } catch (error) {
    if (isAborted(signal)) throw abortedError(signal, `${provider} request`);
    throw networkError(error, { url, provider, model, secrets });
  }
  bounds?.headersReceived();
  if (response.ok) return response;
  throw await providerErrorFromResponse(response, { provider, model, secrets });
}

/**
 * `pending`, or a rejection as soon as `signal` aborts — so a custom `fetch` that ignores its
 * signal cannot hold a call past its headers or total timeout. A response that arrives after
 * the abort has its body cancelled.
 */
function untilAborted(pending: Promise<Response>, signal: AbortSignal | undefined): Promise<Response> {
  if (signal === undefined) return pending;
  return new Promise<Response>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason);
      pending.then(
        (late) => late.body?.cancel().catch(() => undefined),
        () => undefined,
      );
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (response) => {
        signal.removeEventListener("abort", onAbort);
        resolve(response);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** Facts for {@link networkError}. */
export interface NetworkErrorContext {
  url: string;
  provider: string;
  model?: string | undefined;
  secrets?: readonly string[] | undefined;
}

/**
 * The `ProviderError` for a request that got no HTTP response at all. The message names the
 * (credential-free) URL, the underlying cause (`ECONNREFUSED`, `ENOTFOUND`, ...) and what to check.
 */
export function networkError(error: unknown, context: NetworkErrorContext): ProviderError {
  const kind = classifyNetworkError(error);
  const described = describeCause(error);
  const reason = redactSecrets(described, context.secrets);
  const hint =
    kind === "retryable"
      ? "Check that the server is running and reachable; the call can be retried."
      : "Check the base URL (host name, scheme, port) and the network/TLS setup.";
  return new ProviderError({
    provider: context.provider,
    kind,
    message: `${context.provider}: could not reach ${displayUrl(context.url)} (${reason}). ${hint}`,
    // A cause that mentions a credential (a proxy URL with a password, ...) is replaced by a
    // redacted copy, so logging the error with its cause chain leaks nothing.
    cause: reason === described ? error : redactedCause(error, context.secrets),
    ...(context.model === undefined ? {} : { model: context.model }),
  });
}

/** A copy of an error's cause chain (name, code, message) with secrets masked; no stacks, no other fields. */
function redactedCause(error: unknown, secrets: readonly string[] | undefined, depth = 0): unknown {
  if (typeof error !== "object" || error === null || depth >= 4) {
    return typeof error === "string" ? redactSecrets(error, secrets) : undefined;
  }
  const { name, code, message, cause } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  const copy = new Error(redactSecrets(typeof message === "string" ? message : "", secrets), {
    cause: cause === undefined ? undefined : redactedCause(cause, secrets, depth + 1),
  });
  if (typeof name === "string") copy.name = name;
  if (typeof code === "string") Object.assign(copy, { code });
  copy.stack = `${copy.name}: ${copy.message}`;
  return copy;
}

function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (typeof current === "object") {
      const { code, message } = current as { code?: unknown; message?: unknown };
      const text = typeof message === "string" ? message : "";
      const piece = typeof code === "string" && !text.includes(code) ? `${code} ${text}`.trim() : text;
      if (piece !== "" && !parts.includes(piece)) parts.push(piece);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.length === 0 ? "unknown network error" : parts.join(": ");
}
