import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { TinyAgentsError } from "@tinyagents/inference";
import { describeServer, type McpServerSpec } from "./mcp-server-spec.js";

/** One tool as the server lists it (the fields we use). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** Options of {@link McpConnection.open}. */
export interface McpConnectOptions {
  /** How this client introduces itself (default `{ name: "tinyagents", version: "0.1.0" }`). */
  clientInfo?: { name: string; version: string };
  /** Give up connecting after this long (default 30 s). */
  connectTimeoutMs?: number;
  /** Cancels connecting. */
  signal?: AbortSignal;
}

/** Progress reported by a server during a call. */
export interface McpProgress {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

const STDERR_TAIL = 4000;

/**
 * A live connection to one MCP server: its tool list (kept current through
 * `notifications/tools/list_changed`), tool calls with progress and cancellation, and `close()`
 * (which stops a stdio server's process). Uses `@modelcontextprotocol/sdk`'s `Client`.
 */
export class McpConnection {
  readonly spec: McpServerSpec;
  /** The configured name, else the name the server reported. */
  readonly name: string;
  private readonly client: Client;
  private listed: McpToolInfo[] = [];
  private readonly listeners = new Set<() => void>();
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private closed = false;
  private readonly stderrTail: { text: string };

  private constructor(spec: McpServerSpec, client: Client, name: string, stderrTail: { text: string }) {
    this.spec = spec;
    this.client = client;
    this.name = name;
    this.stderrTail = stderrTail;
  }

  /** Connect, initialize and list the server's tools. Errors say which server and why. */
  static async open(spec: McpServerSpec, options: McpConnectOptions = {}): Promise<McpConnection> {
    const stderrTail = { text: "" };
    const transport = makeTransport(spec, stderrTail);
    const client = new Client(options.clientInfo ?? { name: "tinyagents", version: "0.1.0" }, {
      capabilities: {},
    });
    let connection: McpConnection | undefined;
    // A list_changed may arrive before the initialize result; the first listing below covers it.
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      connection?.scheduleRefresh();
    });
    try {
      await client.connect(transport, {
        timeout: options.connectTimeoutMs ?? 30_000,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      await client.close().catch(() => {});
      throw connectError(spec, error, stderrTail.text);
    }
    const name = spec.name ?? client.getServerVersion()?.name ?? describeServer(spec);
    connection = new McpConnection(spec, client, name, stderrTail);
    try {
      await connection.refresh();
    } catch (error) {
      await connection.close();
      throw connectError(spec, error, stderrTail.text);
    }
    return connection;
  }

  /** The tools the server offers now. */
  get tools(): readonly McpToolInfo[] {
    return this.listed;
  }

  /** What the server said about itself at initialization. */
  get serverInfo(): { name: string; version: string } | undefined {
    const info = this.client.getServerVersion();
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** Last lines the server wrote to stderr (stdio servers only; for diagnostics). */
  get stderr(): string {
    return this.stderrTail.text;
  }

  /** Call `onChange` whenever the tool list changed (after a refresh). Returns an unsubscribe function. */
  onToolsChanged(onChange: () => void): () => void {
    this.listeners.add(onChange);
    return () => this.listeners.delete(onChange);
  }

  /** Re-read the tool list now (paginated), then notify listeners. */
  async refresh(): Promise<void> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    this.listed = tools;
    for (const listener of this.listeners) listener();
  }

  /**
   * Call a tool. `signal` cancels it (the server gets `notifications/cancelled`); progress
   * notifications reach `onProgress` and reset the request timeout (`timeoutMs`, default 120 s).
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; onProgress?: (progress: McpProgress) => void; timeoutMs?: number } = {},
  ): Promise<CallToolResult> {
    if (this.closed) {
      throw new TinyAgentsError(
        "tool",
        `MCP server "${this.name}" is closed; reconnect before calling ${name}`,
      );
    }
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: options.timeoutMs ?? 120_000,
      resetTimeoutOnProgress: true,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onProgress === undefined ? {} : { onprogress: options.onProgress }),
    });
    return result as CallToolResult;
  }

  /** Close the connection (a stdio server's process is ended). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await this.client.close().catch(() => {});
  }

  private scheduleRefresh(): void {
    if (this.closed) return;
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.refresh()
      .catch(() => {}) // keep the last good list; the next notification tries again
      .finally(() => {
        this.refreshing = undefined;
        if (this.refreshAgain) {
          this.refreshAgain = false;
          this.scheduleRefresh();
        }
      });
  }
}

function makeTransport(spec: McpServerSpec, stderrTail: { text: string }): Transport {
  if ("transport" in spec) return spec.transport;
  if ("url" in spec) {
    const url = spec.url instanceof URL ? spec.url : new URL(spec.url);
    return new StreamableHTTPClientTransport(url, {
      requestInit: spec.headers === undefined ? {} : { headers: { ...spec.headers } },
    });
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    stderr: "pipe",
    ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrTail.text = (stderrTail.text + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  return transport;
}

function connectError(spec: McpServerSpec, error: unknown, stderr: string): TinyAgentsError {
  const where = describeServer(spec);
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const hint =
    code === "ENOENT"
      ? ` — the command "${"command" in spec ? spec.command : where}" was not found; check it is installed and on PATH`
      : "url" in spec
        ? " — check the server is running and the URL ends with its MCP path (often /mcp)"
        : "";
  const tail =
    stderr.trim() === ""
      ? ""
      : `\nserver stderr (last lines):\n${stderr.trim().split("\n").slice(-10).join("\n")}`;
  return new TinyAgentsError("tool", `could not connect to MCP server ${where}: ${reason}${hint}${tail}`, {
    cause: error,
    details: { server: where },
  });
}
