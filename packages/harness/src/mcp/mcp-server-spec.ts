import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { validationError } from "@tinyagents/inference";

/**
 * How far the application trusts one server's word about its tools. Tool annotations are hints
 * from the server: by default they never make a tool look safer than `destructive`.
 */
export interface McpServerTrust {
  /**
   * Believe this server's annotations (`readOnlyHint` -> `read`, `destructiveHint: false` ->
   * `write` or `external`), except that a tool also hinted destructive stays `destructive`.
   * Default false: every tool of the server is `destructive` unless listed in `readOnlyTools`.
   */
  trustAnnotations?: boolean;
  /** Tools of this server (their MCP names) that the application itself declares read-only. */
  readOnlyTools?: readonly string[];
}

/** A server started as a child process, spoken to over stdio. */
export interface McpStdioServer extends McpServerTrust {
  /** Name used for prefixes and messages (default: the name the server reports). */
  name?: string;
  command: string;
  args?: readonly string[];
  /** Extra environment variables. The child otherwise gets only a safe minimum (PATH, HOME, ...), never your API keys. */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
}

/** A server reached over Streamable HTTP. */
export interface McpHttpServer extends McpServerTrust {
  name?: string;
  url: string | URL;
  /** Extra request headers (for example `authorization`). */
  headers?: Readonly<Record<string, string>>;
}

/** A server behind a transport you built (in-memory for tests, a custom one, ...). */
export interface McpTransportServer extends McpServerTrust {
  name?: string;
  transport: Transport;
}

/** How to reach one MCP server. */
export type McpServerSpec = McpStdioServer | McpHttpServer | McpTransportServer;

/**
 * Parse a command line or URL (the CLI's `--mcp "<command>"`) into a server spec:
 * `http(s)://...` is a Streamable HTTP server; anything else is split like a shell would
 * (single and double quotes, backslash escapes; no variables, globs or pipes) into a stdio command.
 */
export function parseMcpServer(text: string, name?: string): McpStdioServer | McpHttpServer {
  const trimmed = text.trim();
  if (/^https?:\/\//i.test(trimmed)) return name === undefined ? { url: trimmed } : { url: trimmed, name };
  const words = splitCommandLine(trimmed);
  const [command, ...args] = words;
  if (command === undefined) {
    throw validationError(
      'the MCP server command is empty; pass a command such as "npx -y @modelcontextprotocol/server-everything" or an http(s) URL',
      { field: "mcp" },
    );
  }
  return name === undefined ? { command, args } : { command, args, name };
}

/** Split a command line into words (quotes and backslashes as in a POSIX shell, nothing else). */
export function splitCommandLine(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else current += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === "\\" && i + 1 < text.length && /["\\$`]/.test(text[i + 1] as string))
        current += text[++i];
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      current += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += c;
      inWord = true;
    }
  }
  if (quote !== undefined) {
    throw validationError(`unbalanced ${quote} quote in the MCP command ${JSON.stringify(text)}`, {
      field: "mcp",
    });
  }
  if (inWord) words.push(current);
  return words;
}
