import { validationError } from "@tinyagents/inference";

/**
 * Which URLs `http_fetch` may request. Each entry is one of:
 * - a host name, optionally with a port: `api.example.com`, `127.0.0.1:8080` (any path, http or https);
 * - a wildcard for subdomains: `*.example.com` (not `example.com` itself);
 * - a URL prefix: `https://api.github.com/repos/` (same scheme, host, port and path prefix).
 * Matching is on the parsed URL (lower-cased host, default ports filled in), never on raw text,
 * so `https://example.com.evil.net` or `https://example.com@evil.net` do not match `example.com`.
 */
export class UrlAllowlist {
  private readonly rules: readonly Rule[];
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    if (!Array.isArray(entries) || entries.length === 0) {
      throw validationError(
        'http_fetch needs an allowlist: pass { allow: ["api.example.com", "https://docs.example.com/"] }; nothing is allowed by default',
        { field: "allow" },
      );
    }
    this.entries = Object.freeze([...entries]);
    this.rules = entries.map(parseRule);
  }

  /** Whether `url` may be fetched. */
  allows(url: URL): boolean {
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    if (url.username !== "" || url.password !== "") return false;
    const host = url.hostname.toLowerCase();
    const port = url.port === "" ? defaultPort(url.protocol) : url.port;
    return this.rules.some((rule) => {
      if (rule.kind === "prefix") return url.href.startsWith(rule.prefix) || `${url.href}/` === rule.prefix;
      if (rule.port !== undefined && rule.port !== port) return false;
      return rule.kind === "host" ? host === rule.host : host.endsWith(`.${rule.host}`);
    });
  }
}

type Rule =
  | { kind: "host"; host: string; port?: string }
  | { kind: "wildcard"; host: string; port?: string }
  | { kind: "prefix"; prefix: string };

function parseRule(entry: string): Rule {
  const bad = (why: string) =>
    validationError(`http_fetch allowlist entry ${JSON.stringify(entry)} ${why}`, { field: "allow", entry });
  if (typeof entry !== "string" || entry.trim() === "") throw bad("is empty");
  const text = entry.trim();
  if (/^https?:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw bad("is not a valid URL");
    }
    return { kind: "prefix", prefix: url.href };
  }
  if (text.includes("/"))
    throw bad("must be a host (api.example.com), *.domain or a URL prefix with http(s)://");
  const wildcard = text.startsWith("*.");
  const [host = "", port] = (wildcard ? text.slice(2) : text).toLowerCase().split(":");
  if (!/^[a-z0-9.-]+$/.test(host) || (port !== undefined && !/^\d+$/.test(port))) {
    throw bad("is not a host name with an optional port");
  }
  const rule = { kind: wildcard ? "wildcard" : "host", host } as Rule & { host: string; port?: string };
  if (port !== undefined) rule.port = port;
  return rule;
}

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : "80";
}
