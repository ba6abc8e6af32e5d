import { displayUrl, redactSecrets, registerSecrets, secretsFromConfig } from "@tinyagents/inference";
import type { McpServerSpec } from "./mcp-server-spec.js";

/** Flag names whose value is a credential (`--api-key=…`, `--token …`, `-p <password>`...). */
const SECRET_FLAG = /(?:key|token|secret|passw(?:or)?d|pass|auth|credential|bearer|cookie|session)/i;
const MASK = "REDACTED";

/**
 * The credentials in a server spec: the values of credential-named `env` variables
 * (`GITHUB_TOKEN`, `MY_API_KEY`, ...: extra environment variables are how servers get their
 * keys; `PATH` or `HOME` are not credentials and would mask ordinary paths), every header value,
 * the URL's query and user info, and the values of credential-looking command-line flags.
 * Registered process-wide when a connection opens, so the journal's redactor and every message
 * mask them too. (`env` itself is never printed, whatever its names.)
 */
export function mcpSpecSecrets(spec: McpServerSpec): string[] {
  const out: string[] = [];
  if ("command" in spec) {
    for (const [name, value] of Object.entries(spec.env ?? {})) if (SECRET_FLAG.test(name)) out.push(value);
    const args = spec.args ?? [];
    args.forEach((arg, i) => {
      const value = flagValue(arg, args[i + 1]);
      if (value !== undefined) out.push(value);
    });
  } else if ("url" in spec) {
    const headers = spec.headers === undefined ? undefined : { ...spec.headers };
    out.push(...secretsFromConfig({ headers, baseUrl: String(spec.url) }));
  }
  return out.filter((value) => value.trim() !== "");
}

/** Register a spec's credentials for redaction everywhere (see {@link mcpSpecSecrets}). */
export function registerMcpSecrets(spec: McpServerSpec): void {
  registerSecrets(mcpSpecSecrets(spec));
}

/**
 * A short human description of where a server is, safe to print in messages: the command with
 * credential flag values masked (`--api-key=REDACTED`), or the URL without its query values and
 * user info. Never includes `env` or headers.
 */
export function describeServer(spec: McpServerSpec): string {
  if ("command" in spec) {
    const args = spec.args ?? [];
    const shown = args.map((arg, i) => {
      const previous = args[i - 1];
      if (previous !== undefined && isBareSecretFlag(previous) && !arg.startsWith("-")) return MASK;
      const eq = arg.indexOf("=");
      if (eq > 0 && arg.startsWith("-") && SECRET_FLAG.test(arg.slice(0, eq)))
        return `${arg.slice(0, eq + 1)}${MASK}`;
      return arg;
    });
    return redactSecrets([spec.command, ...shown].join(" "));
  }
  if ("url" in spec) return displayUrl(String(spec.url));
  return spec.name ?? "custom transport";
}

/**
 * An error safe to keep as a `cause`: the original's name, code, message and stack with every
 * registered credential masked, and nothing else (Node's spawn errors carry `spawnargs` and
 * `path`, the full command line).
 */
export function safeCause(error: unknown): Error {
  const original = error instanceof Error ? error : new Error(String(error));
  const safe = new Error(redactSecrets(original.message));
  safe.name = original.name;
  const code = (original as NodeJS.ErrnoException).code;
  if (typeof code === "string") (safe as NodeJS.ErrnoException).code = code;
  if (original.stack !== undefined) safe.stack = redactSecrets(original.stack);
  return safe;
}

/** The value a credential flag carries in `arg` (`--key=v`) or in the next argument (`--key v`). */
function flagValue(arg: string, next: string | undefined): string | undefined {
  const eq = arg.indexOf("=");
  if (eq > 0 && arg.startsWith("-") && SECRET_FLAG.test(arg.slice(0, eq))) return arg.slice(eq + 1);
  if (isBareSecretFlag(arg) && next !== undefined && !next.startsWith("-")) return next;
  return undefined;
}

function isBareSecretFlag(arg: string): boolean {
  return arg.startsWith("-") && !arg.includes("=") && SECRET_FLAG.test(arg);
}
