import { ProviderError, type ProviderErrorInit } from "../errors/provider-error.js";
import { registeredSecrets } from "./config-secrets.js";

/** Header names whose values are credentials. Compared lower-cased. */
const SECRET_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "openai-organization",
  "openai-project",
]);

/** Well-known API key shapes, masked even when the caller did not name them. */
const KEY_PATTERNS: readonly RegExp[] = [
  /\bsk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:gsk|xai)-?_?[A-Za-z0-9]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
];

/**
 * `error` with every secret masked: a `ProviderError` whose message or raw body holds one of
 * `secrets` (or a well-known key shape) is rebuilt with both redacted (same kind, status, codes
 * and cause); anything else is returned as it is. For adapters whose parsers do not know the
 * credentials (an error event inside a stream, an error object in a 200 body).
 */
export function redactProviderError<T>(error: T, secrets: readonly string[]): T | ProviderError {
  if (!ProviderError.isProviderError(error)) return error;
  const message = redactSecrets(error.message, secrets);
  const rawBody = error.rawBody === undefined ? undefined : redactSecrets(error.rawBody, secrets);
  if (message === error.message && rawBody === error.rawBody) return error;
  const init: ProviderErrorInit = { provider: error.provider, kind: error.kind, message, cause: error.cause };
  if (error.model !== undefined) init.model = error.model;
  if (error.status !== undefined) init.status = error.status;
  if (error.providerCode !== undefined) init.providerCode = error.providerCode;
  if (error.retryAfterMs !== undefined) init.retryAfterMs = error.retryAfterMs;
  if (rawBody !== undefined) init.rawBody = rawBody;
  return new ProviderError(init);
}

/** What secrets are replaced with. */
export const REDACTED = "[REDACTED]";

/**
 * The credential values in a set of request headers (Authorization, x-api-key, api-key, ...),
 * including the bare token of a `Bearer <token>` value, for {@link redactSecrets}.
 * Values shorter than 6 characters are ignored (too short to be a key, too likely to be text).
 */
export function secretsFromHeaders(headers: Record<string, string> | undefined): string[] {
  if (headers === undefined) return [];
  const secrets: string[] = [];
  for (const name of Object.keys(headers)) {
    if (!SECRET_HEADERS.has(name.toLowerCase())) continue;
    const value = headers[name];
    if (value === undefined || value.length < 6) continue;
    secrets.push(value);
    const bearer = /^\s*(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value);
    if (bearer?.[1] !== undefined && bearer[1].length >= 6) secrets.push(bearer[1].trim());
  }
  return secrets;
}

/**
 * Replace every occurrence of each secret, of every configured secret of any model in the
 * process (`registerSecrets`: header values, base-URL query values), and of anything shaped like
 * a well-known API key (`sk-...`, `Bearer ...`) in `text` with `[REDACTED]`. Used on every error
 * message and raw body the HTTP layer produces, so keys never reach events, journals or logs.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 6) continue;
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const secret of registeredSecrets()) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of KEY_PATTERNS) out = out.replace(pattern, REDACTED);
  return out;
}

/**
 * A URL safe to print: user info and the value of EVERY query parameter are masked (a base URL's
 * query is configuration that often carries a key: `?key=`, `?code=`, `?sig=`), names kept.
 */
export function displayUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: keep what precedes a query, mask the rest.
    const q = url.indexOf("?");
    return redactSecrets(q === -1 ? url : `${url.slice(0, q)}?REDACTED`);
  }
  if (parsed.username !== "" || parsed.password !== "") {
    parsed.username = "";
    parsed.password = "";
  }
  for (const name of new Set(parsed.searchParams.keys())) parsed.searchParams.set(name, "REDACTED");
  return redactSecrets(parsed.toString());
}
