import type { FetchLike, JsonObject } from "@tinyagents/inference";
import { tool } from "../tool/define-tool.js";
import type { Tool } from "../tool/tool.js";
import { messageOf, toolError } from "./tool-error.js";
import { UrlAllowlist } from "./url-allowlist.js";

/** Options of {@link httpFetchTool}. */
export interface HttpFetchOptions {
  /** Required: what may be fetched (see {@link UrlAllowlist}). Nothing is allowed by default. */
  allow: readonly string[];
  /** Keep at most this many bytes of the body (default 100,000). */
  maxBytes?: number;
  /** Per-request timeout (default 15 s); the run's abort signal also applies. */
  timeoutMs?: number;
  /** Redirects followed, each re-checked against the allowlist (default 3). */
  maxRedirects?: number;
  /** The fetch implementation (default the platform `fetch`). */
  fetch?: FetchLike;
  /** Extra request headers (for example a User-Agent, or an `Authorization` for one API). */
  headers?: Record<string, string>;
  /**
   * More header names that carry credentials (case-insensitive), besides the ones always treated
   * so ({@link CREDENTIAL_HEADERS}): like those, they are dropped when a redirect leaves the
   * origin of the requested URL, and stay dropped for the rest of the redirect chain.
   */
  credentialHeaders?: readonly string[];
}

/**
 * Header names always treated as credentials by `http_fetch`: never sent to another origin
 * after a redirect (what the fetch standard does for `Authorization`, extended to the usual
 * API-key headers, since `http_fetch` sends configured headers itself).
 */
export const CREDENTIAL_HEADERS: readonly string[] = Object.freeze([
  "authorization",
  "proxy-authorization",
  "cookie",
  "x-api-key",
  "api-key",
]);

/**
 * `http_fetch`: GET a URL on the allowlist and return `{ url, status, contentType, body, truncated }`.
 * Every redirect hop is checked against the allowlist too, and a hop to another origin (scheme,
 * host or port) drops the credential headers ({@link CREDENTIAL_HEADERS} and
 * `credentialHeaders`) for the rest of the chain; non-text bodies are described, not returned. Network failures, disallowed URLs and timeouts are error results. Policy: `read`
 * (GET only), with `maxResultBytes` matching `maxBytes`.
 */
export function httpFetchTool(options: HttpFetchOptions): Tool<unknown, unknown, JsonObject> {
  const allowlist = new UrlAllowlist(options.allow);
  const maxBytes = options.maxBytes ?? 100_000;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRedirects = options.maxRedirects ?? 3;
  const doFetch: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const credentials = new Set([...CREDENTIAL_HEADERS, ...(options.credentialHeaders ?? [])].map(lower));
  return tool({
    name: "http_fetch",
    description: `Fetch a web page or API response with HTTP GET. Allowed: ${allowlist.entries.join(", ")}.`,
    inputSchema: {
      type: "object",
      properties: { url: { type: "string", description: "The http(s) URL to fetch" } },
      required: ["url"],
      additionalProperties: false,
    },
    policy: { sideEffects: "read", maxResultBytes: maxBytes + 2_000 },
    timeout: { ms: timeoutMs + 1_000 },
    execute: async (args, ctx) => {
      let url: URL;
      try {
        url = new URL(String(args.url));
      } catch {
        return toolError(
          `${JSON.stringify(args.url)} is not a valid absolute URL (expected https://host/path)`,
        );
      }
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      const origin = url.origin;
      let headers: Record<string, string> = {
        accept: "text/*, application/json;q=0.9, */*;q=0.1",
        ...options.headers,
      };
      try {
        for (let hop = 0; ; hop++) {
          if (!allowlist.allows(url)) {
            return toolError(`${url.href} is not on the allowlist (${allowlist.entries.join(", ")})`);
          }
          const response = await doFetch(url.href, {
            method: "GET",
            redirect: "manual",
            signal,
            headers,
          });
          const location = response.headers.get("location");
          if (response.status >= 300 && response.status < 400 && location !== null) {
            await response.body?.cancel();
            if (hop >= maxRedirects)
              return toolError(`too many redirects (more than ${maxRedirects}) from ${args.url}`);
            url = new URL(location, url);
            // Once the chain leaves the first origin, credentials are gone for good (as in fetch).
            if (url.origin !== origin) headers = withoutHeaders(headers, credentials);
            continue;
          }
          return await describeResponse(url, response, maxBytes);
        }
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        const reason = signal.aborted ? `timed out after ${timeoutMs} ms` : messageOf(error);
        return toolError(`fetching ${url.href} failed: ${reason}`);
      }
    },
  });
}

function lower(name: string): string {
  return name.toLowerCase();
}

function withoutHeaders(headers: Record<string, string>, names: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(lower(name))));
}

async function describeResponse(url: URL, response: Response, maxBytes: number): Promise<JsonObject> {
  const contentType = response.headers.get("content-type") ?? "";
  const textual =
    contentType === "" || /^text\/|json|xml|javascript|x-www-form-urlencoded/i.test(contentType);
  if (!textual) {
    await response.body?.cancel();
    return {
      url: url.href,
      status: response.status,
      contentType,
      body: `[${contentType} body not shown]`,
      truncated: false,
    };
  }
  const { bytes, truncated } = await readCapped(response, maxBytes);
  return {
    url: url.href,
    status: response.status,
    contentType,
    body: new TextDecoder().decode(bytes),
    truncated,
  };
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { bytes: new Uint8Array(), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes: all.subarray(0, Math.min(size, maxBytes)), truncated };
}
