import { validationError } from "../errors/tinyagents-error.js";

/**
 * Check a configured base URL at construction: it must be an absolute `http:` or `https:` URL.
 * Returns it with trailing slashes removed from the path (query and fragment kept). Throws a
 * `validation` error naming `who` and `field` that describes the bad value's SHAPE — never the
 * value, which may hold a credential (`?key=…`, `user:password@`).
 */
export function checkBaseUrl(value: unknown, who: string, field = "baseUrl"): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw validationError(
      `${who}: ${field} must be an absolute http(s) URL such as https://api.example.com/v1, got ${describeShape(value)}`,
      { field },
    );
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw validationError(
      `${who}: ${field} must be an absolute http(s) URL such as https://api.example.com/v1, got ${describeShape(value)} that does not parse as a URL${/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim()) ? "" : " (no scheme: add http:// or https://)"}`,
      { field },
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw validationError(
      `${who}: ${field} must be an absolute http(s) URL such as https://api.example.com/v1, got a URL with the scheme "${url.protocol.slice(0, 20)}" (write http:// or https:// in front of the host)`,
      { field },
    );
  }
  url.pathname = url.pathname.replace(/\/+$/, "");
  const out = url.toString();
  // `URL` writes "/" for an empty path; keep "https://h?x=1" and "https://h" as given.
  return url.pathname === "/" || url.pathname === "" ? out.replace(/\/(?=\?|#|$)/, "") : out;
}

/**
 * `base` + `path`, with the path appended to the base's PATH and its query string kept at the
 * end: `joinUrl("https://h/v1?key=X", "/chat/completions")` is
 * `"https://h/v1/chat/completions?key=X"`. A base without a query is joined as plain text.
 */
export function joinUrl(base: string, path: string): string {
  const q = base.search(/[?#]/);
  const suffix = path.startsWith("/") ? path : `/${path}`;
  if (q === -1) return `${base.replace(/\/+$/, "")}${suffix}`;
  return `${base.slice(0, q).replace(/\/+$/, "")}${suffix}${base.slice(q)}`;
}

function describeShape(value: unknown): string {
  if (typeof value !== "string") return value === null ? "null" : `a ${typeof value}`;
  if (value.trim() === "") return "an empty string";
  return `a ${value.length}-character string`;
}
