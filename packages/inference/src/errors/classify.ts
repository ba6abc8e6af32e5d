import { isContextOverflowCode, isContextOverflowMessage } from "./context-overflow.js";
import type { ProviderFailureKind } from "./provider-error.js";

/** What is known about a failed provider call. Every field is optional. */
export interface ProviderFailureFacts {
  /** HTTP status, when the failure was an HTTP response. */
  status?: number | undefined;
  /** The provider's error code or type (`insufficient_quota`, `overloaded_error`, ...). */
  code?: string | undefined;
  /** The provider's error message. */
  message?: string | undefined;
}

const QUOTA_CODES: ReadonlySet<string> = new Set([
  "insufficient_quota",
  "billing_hard_limit_reached",
  "billing_not_active",
  "quota_exceeded",
]);
const QUOTA_MESSAGES: readonly RegExp[] = [
  /exceeded your current quota/i,
  /credit balance is too low/i,
  /billing hard limit/i,
  /insufficient[_ ]quota/i,
];
const RATE_LIMIT_CODES: ReadonlySet<string> = new Set([
  "rate_limit_exceeded",
  "rate_limit_error",
  "rate_limited",
]);
const UNHEALTHY_CODES: ReadonlySet<string> = new Set([
  "overloaded_error",
  "server_error",
  "api_error",
  "service_unavailable",
  "internal_server_error",
]);
const UNHEALTHY_STATUSES: ReadonlySet<number> = new Set([500, 502, 503, 504, 529]);
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 409, 425]);

/**
 * Decide how retry and fallback should treat a provider failure. Rules, in order:
 * 1. context-overflow code or message (for a 4xx other than 429, or no status) -> `context_overflow`;
 * 2. exhausted quota or billing (`insufficient_quota`, `billing_hard_limit_reached`, "exceeded your
 *    current quota", "credit balance is too low"; any status below 500) or 402 -> `quota_exhausted`;
 * 3. `overloaded_error` / `server_error` / `api_error` codes (no status, or not a 4xx; a stream
 *    error event arrives on a 200 response) -> `upstream_unhealthy`;
 * 4. 429 or a rate-limit code -> `rate_limited`;
 * 5. 408, 409, 425 -> `retryable`;
 * 6. 500, 502, 503, 504, 529 and any other 5xx except 501 -> `upstream_unhealthy`;
 * 7. any other status (4xx, 501, ...) -> `non_retryable`;
 * 8. no status and no recognised code -> `non_retryable` (use {@link classifyNetworkError} for
 *    thrown network errors).
 */
export function classifyProviderFailure(facts: ProviderFailureFacts): ProviderFailureKind {
  const { status, code, message } = facts;
  const clientSide = status === undefined || (status >= 400 && status < 500 && status !== 429);
  if (clientSide && (isContextOverflowCode(code) || isContextOverflowMessage(message)))
    return "context_overflow";
  if (status === 402) return "quota_exhausted";
  if ((status === undefined || status < 500) && isQuotaExhausted(code, message)) return "quota_exhausted";
  const fourXX = status !== undefined && status >= 400 && status < 500;
  if (!fourXX && code !== undefined && UNHEALTHY_CODES.has(code)) return "upstream_unhealthy";
  if (status === 429 || (code !== undefined && RATE_LIMIT_CODES.has(code))) return "rate_limited";
  if (status === undefined) return "non_retryable";
  if (RETRYABLE_STATUSES.has(status)) return "retryable";
  if (UNHEALTHY_STATUSES.has(status) || (status >= 500 && status < 600 && status !== 501)) {
    return "upstream_unhealthy";
  }
  return "non_retryable";
}

function isQuotaExhausted(code: string | undefined, message: string | undefined): boolean {
  if (code !== undefined && QUOTA_CODES.has(code)) return true;
  if (message === undefined) return false;
  for (const pattern of QUOTA_MESSAGES) if (pattern.test(message)) return true;
  return false;
}

/** Network error codes (Node `errno` and undici) that are worth retrying. */
const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENETUNREACH",
  "ENETDOWN",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** Network error codes that waiting will not fix. */
const PERMANENT_NETWORK_CODES: ReadonlySet<string> = new Set([
  "ENOTFOUND",
  "CERT_HAS_EXPIRED",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_INVALID_URL",
]);

/**
 * Classify an error thrown before any HTTP status arrived (fetch rejections). Walks the `cause`
 * chain (undici wraps the socket error in `TypeError: fetch failed`) looking for an error code:
 * - connection reset/refused/aborted, timeouts, `EAI_AGAIN` (temporary DNS) -> `retryable`;
 * - `ENOTFOUND` (the host does not exist: a wrong base URL), TLS certificate failures and
 *   invalid URLs -> `non_retryable`;
 * - a `TimeoutError` -> `retryable`; an `AbortError` (the caller cancelled) -> `non_retryable`;
 * - no code, but a message such as "fetch failed", "socket hang up" or "network" -> `retryable`;
 * - anything else -> `non_retryable`.
 */
export function classifyNetworkError(error: unknown): ProviderFailureKind {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth++) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (typeof code === "string") {
      if (RETRYABLE_NETWORK_CODES.has(code)) return "retryable";
      if (PERMANENT_NETWORK_CODES.has(code)) return "non_retryable";
    }
    if (name === "TimeoutError") return "retryable";
    if (name === "AbortError") return "non_retryable";
    current = (current as { cause?: unknown }).cause;
  }
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return /fetch failed|socket hang up|network|timed? ?out|connection (?:reset|closed|refused)/i.test(message)
    ? "retryable"
    : "non_retryable";
}
