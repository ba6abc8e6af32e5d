/**
 * Secrets by configuration: the values a user configured on a model — every value of its extra
 * headers and of its base URL's query string and user info — are credentials as far as
 * redaction is concerned, whatever their names (a gateway's `x-portkey-api-key`, an Azure-style
 * `?api-version=…&key=…`). They are collected once per model (`secretsFromConfig`) and also
 * registered process-wide (`registerSecrets`), so `redactSecrets` — used on every error message,
 * raw body and stack the HTTP layer produces — and the harness's `Redactor` (journals, status,
 * OTel, Langfuse) mask them even where the code at hand does not know the model.
 */

/** Shortest value treated as a secret (shorter ones are too likely to be ordinary text). */
export const MIN_SECRET_LENGTH = 6;

/** Header names that configure behaviour, never credentials; their values are not masked. */
const NON_SECRET_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "content-type",
  "user-agent",
  "anthropic-version",
  "anthropic-beta",
  "openai-beta",
  "http-referer",
  "referer",
  "x-title",
]);

/** Most values kept in the process-wide registry (oldest dropped first); bounds memory. */
const MAX_REGISTERED = 1024;
const registered = new Set<string>();
/** Bumped on every change of {@link registered}, to rebuild the sorted copy lazily. */
let version = 0;
let sortedVersion = -1;
let sorted: readonly string[] = [];

/**
 * Add `values` to the process-wide set of configured secrets (values shorter than
 * `MIN_SECRET_LENGTH` are ignored). Called by every model constructor with its
 * {@link secretsFromConfig}; call it yourself for credentials that reach the library some other
 * way (a custom `fetch` that adds a header).
 */
export function registerSecrets(values: Iterable<string>): void {
  for (const value of values) {
    if (value.length < MIN_SECRET_LENGTH || registered.has(value)) continue;
    if (registered.size >= MAX_REGISTERED) {
      const oldest = registered.values().next().value;
      if (oldest !== undefined) registered.delete(oldest);
    }
    registered.add(value);
    version++;
  }
}

/** The process-wide configured secrets, longest first (so a secret containing another is masked whole). */
export function registeredSecrets(): readonly string[] {
  if (sortedVersion !== version) {
    sorted = [...registered].sort((a, b) => b.length - a.length);
    sortedVersion = version;
  }
  return sorted;
}

/** What a model was configured with, for {@link secretsFromConfig}. */
export interface ModelSecretsConfig {
  /** The extra headers the user configured (not the adapter's own, like `anthropic-version`). */
  headers?: Record<string, string> | undefined;
  /** The base URL as configured. */
  baseUrl?: string | undefined;
  /** The API key. */
  apiKey?: string | undefined;
}

/**
 * The credential values of a model's configuration: the API key, every configured header value
 * (except the behaviour headers `content-type`, `anthropic-version`, `x-title`, …) and the bare
 * token of a `Bearer`/`Basic`/`Token` value, and every query value (raw and decoded), the whole
 * query string, and the user info of the base URL. Values shorter than `MIN_SECRET_LENGTH`
 * are left out.
 */
export function secretsFromConfig(config: ModelSecretsConfig): string[] {
  const out = new Set<string>();
  const add = (value: string | undefined): void => {
    const v = value?.trim();
    if (v !== undefined && v.length >= MIN_SECRET_LENGTH) out.add(v);
  };
  add(config.apiKey);
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    if (typeof value !== "string" || NON_SECRET_HEADERS.has(name.toLowerCase())) continue;
    add(value);
    const token = /^\s*(?:Bearer|Basic|Token)\s+(.+)$/i.exec(value);
    if (token !== null) add(token[1]);
  }
  if (config.baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(config.baseUrl.trim());
    } catch {
      url = undefined;
    }
    if (url !== undefined) {
      if (url.search.length > 1) add(url.search.slice(1));
      for (const pair of url.search.slice(1).split("&")) {
        const raw = pair.slice(pair.indexOf("=") + 1);
        if (pair.includes("=")) add(raw);
      }
      for (const value of url.searchParams.values()) add(value);
      add(url.password);
      add(decodeSafe(url.password));
      if (url.password !== "") add(url.username);
    }
  }
  return [...out];
}

function decodeSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The key `util.inspect` (Node, Bun, Deno's Node compat) looks up for a custom view. */
export const INSPECT = Symbol.for("nodejs.util.inspect.custom");

/**
 * What `util.inspect(model)` shows: the class name and `fields` (provider, model id, the
 * credential-free endpoint), plus the NAMES of the configured headers — never their values,
 * the API key or the base URL's query.
 */
export function inspectView(
  className: string,
  fields: Record<string, unknown>,
  headers: Record<string, string> | undefined,
): object {
  const view: Record<string, unknown> = { ...fields };
  const names = Object.keys(headers ?? {});
  if (names.length > 0) view.headers = Object.fromEntries(names.map((n) => [n, "[REDACTED]"]));
  // A plain object whose constructor name reads as the class, so the output still says what it is.
  return Object.assign(Object.create({ constructor: { name: className } }) as object, view);
}

/**
 * What `JSON.stringify(model)` writes: the same credential-free view as `util.inspect` (class
 * name as `type`, provider, model id, endpoint without query or user info, header NAMES only).
 * Apps and error reporters serialize configs with `JSON.stringify`; the key, custom credential
 * headers and `?key=` query values must never come out that way.
 */
export function jsonView(
  className: string,
  fields: Record<string, string>,
  headers: Record<string, string> | undefined,
): Record<string, string | Record<string, string>> {
  const view: Record<string, string | Record<string, string>> = { type: className, ...fields };
  const names = Object.keys(headers ?? {});
  if (names.length > 0) view.headers = Object.fromEntries(names.map((n) => [n, "[REDACTED]"]));
  return view;
}
