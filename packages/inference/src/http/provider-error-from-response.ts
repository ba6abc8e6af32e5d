import { classifyProviderFailure } from "../errors/classify.js";
import { ProviderError, type ProviderErrorInit, type ProviderFailureKind } from "../errors/provider-error.js";
import { type ErrorBodyFacts, errorBodyFacts } from "./error-body.js";
import { redactSecrets } from "./redact.js";
import { retryAfterFromHints } from "./retry-hints.js";

/** How much of an error body is kept on `ProviderError.rawBody`. */
export const RAW_BODY_LIMIT = 8 * 1024;
/** How much of an error body is read at most (the rest is discarded unread). */
const READ_LIMIT = 64 * 1024;

/** Who failed, for {@link providerErrorFromResponse}. */
export interface ProviderErrorContext {
  /** Provider name (`openai`, `groq`, ...). */
  provider: string;
  /** The model id the request asked for. */
  model?: string | undefined;
  /** Credential values to mask in the message and raw body (see `secretsFromHeaders`). */
  secrets?: readonly string[] | undefined;
  /** Current time for HTTP-date `retry-after` values (default `Date.now()`). */
  nowMs?: number | undefined;
}

/**
 * Turn a non-2xx HTTP response into a {@link ProviderError}. Reads (at most 64 KiB of) the body
 * and understands every error shape in `errorBodyFacts` (OpenAI, Anthropic, Ollama, Mistral,
 * llama.cpp, FastAPI, plain text, HTML). The result carries:
 * - `status`, `providerCode` (the body's `code`, else its `type`), a message naming the
 *   provider, the status, the provider's own words and what to do;
 * - `kind` from `classifyProviderFailure` (so context overflow -> `context_overflow`), then
 *   overridden by an `x-should-retry: true|false` header when the provider sent one;
 * - `retryAfterMs` from `retry-after-ms`, `retry-after`, `x-ratelimit-reset-*` or a
 *   "try again in ..." phrase;
 * - `rawBody`: the body text capped at 8 KiB.
 * Secrets (the context's `secrets` and anything shaped like an API key) are masked everywhere.
 * Never throws: an unreadable body gives a message built from the status alone.
 */
export async function providerErrorFromResponse(
  response: Response,
  context: ProviderErrorContext,
): Promise<ProviderError> {
  const text = redactSecrets(await readCapped(response), context.secrets);
  const facts = errorBodyFacts(text);
  return providerErrorFromFacts(facts, {
    ...context,
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    rawBody: text,
  });
}

/** Everything {@link providerErrorFromFacts} needs besides the body facts. */
export interface ProviderErrorFacts extends ProviderErrorContext {
  status?: number | undefined;
  statusText?: string | undefined;
  headers?: Headers | undefined;
  rawBody?: string | undefined;
  cause?: unknown;
}

/**
 * Build a {@link ProviderError} from error facts already extracted (an HTTP error body, or an
 * `{"error": ...}` payload that arrived inside a 200 stream). See
 * {@link providerErrorFromResponse} for the rules.
 */
export function providerErrorFromFacts(body: ErrorBodyFacts, facts: ProviderErrorFacts): ProviderError {
  const numericCode = body.code !== undefined && /^\d+$/.test(body.code);
  const providerCode = numericCode ? (body.type ?? body.code) : (body.code ?? body.type);
  const providerMessage = body.message === undefined ? undefined : redactSecrets(body.message, facts.secrets);
  let kind = classifyProviderFailure({
    status: facts.status,
    code: providerCode,
    message: providerMessage,
  });
  if (kind !== "context_overflow" && body.type !== undefined && body.type !== providerCode) {
    const byType = classifyProviderFailure({
      status: facts.status,
      code: body.type,
      message: providerMessage,
    });
    if (byType === "context_overflow" || byType === "quota_exhausted") kind = byType;
  }
  if (kind === "non_retryable" && looksLikeOverflow(facts.status, providerCode, body.type, providerMessage)) {
    kind = "context_overflow";
  }
  kind = applyShouldRetry(kind, facts.headers?.get("x-should-retry"));
  const retryAfterMs =
    facts.headers === undefined
      ? retryAfterFromMessage(providerMessage)
      : retryAfterFromHints(facts.headers, providerMessage, facts.nowMs ?? Date.now());
  const init: ProviderErrorInit = {
    provider: facts.provider,
    kind,
    message: composeMessage(facts, body, providerCode, providerMessage, kind, retryAfterMs),
  };
  if (facts.model !== undefined) init.model = facts.model;
  if (facts.status !== undefined) init.status = facts.status;
  if (providerCode !== undefined) init.providerCode = providerCode;
  if (retryAfterMs !== undefined) init.retryAfterMs = retryAfterMs;
  if (facts.rawBody !== undefined && facts.rawBody !== "") {
    init.rawBody = capRawBody(redactSecrets(facts.rawBody, facts.secrets));
  }
  if (facts.cause !== undefined) init.cause = facts.cause;
  return new ProviderError(init);
}

/** Cap a raw body at {@link RAW_BODY_LIMIT} characters, marking the cut. */
export function capRawBody(text: string): string {
  return text.length <= RAW_BODY_LIMIT ? text : `${text.slice(0, RAW_BODY_LIMIT)}…[truncated]`;
}

/** Phrasings the shared classifier does not know (llama.cpp, vLLM, Ollama /v1). */
const EXTRA_OVERFLOW =
  /exceed_context_size|exceeds the available context size|context size|n_ctx|context_window_exceeded|longer than the model's context length|maximum model length/i;

function looksLikeOverflow(
  status: number | undefined,
  code: string | undefined,
  type: string | undefined,
  message: string | undefined,
): boolean {
  if (status !== undefined && (status < 400 || status >= 500 || status === 429)) return false;
  return [code, type, message].some((value) => value !== undefined && EXTRA_OVERFLOW.test(value));
}

function applyShouldRetry(kind: ProviderFailureKind, header: string | null | undefined): ProviderFailureKind {
  const value = header?.trim().toLowerCase();
  if (
    value === "false" &&
    (kind === "retryable" || kind === "upstream_unhealthy" || kind === "rate_limited")
  ) {
    return "non_retryable";
  }
  if (value === "true" && kind === "non_retryable") return "retryable";
  return kind;
}

function retryAfterFromMessage(message: string | undefined): number | undefined {
  if (message === undefined) return undefined;
  return retryAfterFromHints(new Headers(), message, Date.now());
}

function composeMessage(
  facts: ProviderErrorFacts,
  body: ErrorBodyFacts,
  providerCode: string | undefined,
  providerMessage: string | undefined,
  kind: ProviderFailureKind,
  retryAfterMs: number | undefined,
): string {
  const what =
    facts.status === undefined
      ? `${facts.provider} reported an error`
      : `${facts.provider} returned HTTP ${facts.status}${facts.statusText ? ` ${facts.statusText}` : ""}`;
  const code = providerCode === undefined ? "" : ` (${providerCode})`;
  const param = body.param === undefined ? "" : ` [param: ${body.param}]`;
  const said = providerMessage === undefined || providerMessage === "" ? "" : `: ${providerMessage}`;
  const model = facts.model === undefined ? "" : ` for model "${facts.model}"`;
  return `${what}${model}${code}${said}${param}. ${advice(kind, facts.status, retryAfterMs)}`;
}

function advice(
  kind: ProviderFailureKind,
  status: number | undefined,
  retryAfterMs: number | undefined,
): string {
  const wait = retryAfterMs === undefined ? "" : ` after ${formatMs(retryAfterMs)}`;
  switch (kind) {
    case "rate_limited":
      return `Rate limited: retry${wait}, or lower the request rate.`;
    case "quota_exhausted":
      return "The account's quota or credit is exhausted: check the plan and billing; retrying will not help.";
    case "context_overflow":
      return "The prompt does not fit the model's context window: shorten or compress the conversation, or use a model with a larger window.";
    case "upstream_unhealthy":
      return `The provider is overloaded or failing: retry${wait}, or fall back to another model.`;
    case "retryable":
      return `Transient failure: retry${wait}.`;
    case "non_retryable":
      if (status === 401 || status === 403) {
        return "Check the API key (and that it belongs to this provider and base URL).";
      }
      if (status === 404) return "Check the model id and the base URL.";
      return "The request was rejected: fix it before retrying.";
  }
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}

async function readCapped(response: Response): Promise<string> {
  try {
    const body = response.body;
    if (body === null) return "";
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (bytes >= READ_LIMIT) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
    return text + decoder.decode();
  } catch {
    return "";
  }
}
