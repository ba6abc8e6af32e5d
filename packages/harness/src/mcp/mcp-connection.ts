import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolResult,
  ErrorCode,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { redactSecrets, TinyAgentsError } from "@tinyagents/inference";
import { utf8ByteLength } from "../encoding/utf8.js";
import { boundedFetch, limitError, type McpLimits, McpReadGuard, resolveLimits } from "./mcp-bounds.js";
import { describeServer, registerMcpSecrets, safeCause } from "./mcp-secrets.js";
import type { McpServerSpec } from "./mcp-server-spec.js";

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

/** Options of {@link McpConnection.open}: how to connect, and the bounds of what the server may send. */
export interface McpConnectOptions extends McpLimits {
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
  private readonly guard: McpReadGuard;
  private readonly refreshFailed = new Set<(error: unknown) => void>();

  private constructor(
    spec: McpServerSpec,
    client: Client,
    name: string,
    stderrTail: { text: string },
    guard: McpReadGuard,
  ) {
    this.spec = spec;
    this.client = client;
    this.name = name;
    this.stderrTail = stderrTail;
    this.guard = guard;
  }

  /**
   * Connect, initialize and list the server's tools, within `connectTimeoutMs` for the
   * handshake and `listTimeoutMs` for the listing. Errors say which server and why; a crossed
   * bound ({@link McpLimits}) is a `limit_exceeded` or `timeout` error naming the limit.
   */
  static async open(spec: McpServerSpec, options: McpConnectOptions = {}): Promise<McpConnection> {
    // Its env values, header values and credential flags are masked wherever they surface.
    registerMcpSecrets(spec);
    const guard = new McpReadGuard(spec.name ?? describeServer(spec), resolveLimits(options));
    const stderrTail = { text: "" };
    const transport = makeTransport(spec, stderrTail, guard);
    const client = new Client(options.clientInfo ?? { name: "tinyagents", version: "0.1.0" }, {
      capabilities: {},
    });
    // The SDK's stdio reader refuses a line over maxBufferSize (and closes): report it as our bound.
    client.onerror = (error) => {
      if (/ReadBuffer exceeded maximum size/.test(error.message))
        guard.trip(guard.tooLarge("a stdio message"));
    };
    guard.onTrip = () => void client.close().catch(() => {});
    let connection: McpConnection | undefined;
    // A list_changed may arrive before the initialize result; the first listing below covers it.
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      connection?.scheduleRefresh();
    });
    const connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    try {
      await client.connect(transport, {
        timeout: connectTimeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      await client.close().catch(() => {});
      const timedOut = (error as { code?: unknown } | undefined)?.code === ErrorCode.RequestTimeout;
      throw connectError(
        spec,
        guard.tripped ??
          (timedOut
            ? limitError(
                guard.server,
                "connectTimeoutMs",
                connectTimeoutMs,
                "did not finish the MCP handshake in time",
              )
            : error),
        stderrTail.text,
      );
    }
    const name = spec.name ?? client.getServerVersion()?.name ?? describeServer(spec);
    connection = new McpConnection(spec, client, name, stderrTail, guard);
    try {
      await connection.refresh();
    } catch (error) {
      await connection.close();
      throw connectError(spec, error, stderrTail.text);
    }
    return connection;
  }

  /** `util.inspect(connection)`: name and a credential-free description of the server. */
  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /** `JSON.stringify(connection)`: name and server description, never env, arguments' credentials or headers. */
  toJSON(): { type: "McpConnection"; name: string; server: string } {
    return { type: "McpConnection", name: this.name, server: describeServer(this.spec) };
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

  /**
   * Call `onError` when a refresh after `tools/list_changed` failed (the last good list is kept).
   * Returns an unsubscribe function.
   */
  onRefreshFailed(onError: (error: unknown) => void): () => void {
    this.refreshFailed.add(onError);
    return () => this.refreshFailed.delete(onError);
  }

  /**
   * Re-read the tool list now (paginated, within `maxListPages`, `maxTools`, `maxListBytes` and
   * `listTimeoutMs`), then notify listeners. On any error the last good list is kept.
   */
  async refresh(): Promise<void> {
    const { maxListPages, maxTools, maxListBytes, listTimeoutMs } = this.guard.limits;
    const server = this.guard.server;
    const deadline = AbortSignal.timeout(listTimeoutMs);
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let bytes = 0;
    try {
      do {
        if (pages === maxListPages) {
          throw limitError(
            server,
            "maxListPages",
            maxListPages,
            `still returned a nextCursor after ${pages} pages of tools/list`,
          );
        }
        const page = await this.client.listTools(cursor === undefined ? {} : { cursor }, {
          signal: deadline,
          timeout: listTimeoutMs,
        });
        pages++;
        // Each page is within maxMessageBytes already; the listing as a whole is bounded too.
        bytes += utf8ByteLength(JSON.stringify(page.tools ?? []));
        if (bytes > maxListBytes) {
          throw limitError(
            server,
            "maxListBytes",
            maxListBytes,
            `listed more than ${maxListBytes} bytes of tools in ${pages} pages of tools/list`,
          );
        }
        tools.push(...(page.tools as McpToolInfo[]));
        if (tools.length > maxTools) {
          throw limitError(server, "maxTools", maxTools, `listed more than ${maxTools} tools`);
        }
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    } catch (error) {
      if (this.guard.tripped !== undefined) throw this.guard.tripped;
      if (deadline.aborted && !(error instanceof TinyAgentsError)) {
        throw limitError(server, "listTimeoutMs", listTimeoutMs, `did not finish listing its tools in time`);
      }
      throw error;
    }
    this.listed = tools;
    for (const listener of this.listeners) listener();
  }

  /**
   * Call a tool. `signal` cancels it (the server gets `notifications/cancelled`); progress
   * notifications reach `onProgress` and reset the request timeout (`timeoutMs`, default 120 s),
   * but never past `maxTotalMs` (default 10 min): a server cannot keep a call alive forever by
   * reporting progress. Either bound is a `timeout` error naming the server and the limit.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: {
      signal?: AbortSignal;
      onProgress?: (progress: McpProgress) => void;
      timeoutMs?: number;
      maxTotalMs?: number;
    } = {},
  ): Promise<CallToolResult> {
    if (this.closed) {
      throw new TinyAgentsError(
        "tool",
        `MCP server "${this.name}" is closed; reconnect before calling ${name}`,
      );
    }
    const timeoutMs = options.timeoutMs ?? 120_000;
    const maxTotalMs = options.maxTotalMs ?? 600_000;
    // Our own total bound (a timer, not only checked when progress arrives), cancelling the call.
    const total = new AbortController();
    const timer = setTimeout(() => total.abort(), maxTotalMs);
    const signal =
      options.signal === undefined ? total.signal : AbortSignal.any([options.signal, total.signal]);
    try {
      const result = await this.client.callTool({ name, arguments: args }, undefined, {
        timeout: timeoutMs,
        resetTimeoutOnProgress: true,
        signal,
        ...(options.onProgress === undefined ? {} : { onprogress: options.onProgress }),
      });
      return result as CallToolResult;
    } catch (error) {
      if (this.guard.tripped !== undefined) throw this.guard.tripped;
      if (total.signal.aborted && options.signal?.aborted !== true) {
        throw limitError(
          this.name,
          "callMaxTotalMs",
          maxTotalMs,
          `kept the call to ${name} going past its total time`,
        );
      }
      if ((error as { code?: unknown } | undefined)?.code === ErrorCode.RequestTimeout) {
        throw limitError(this.name, "callTimeoutMs", timeoutMs, `did not answer the call to ${name} in time`);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Close the connection (a stdio server's process is ended). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.refreshFailed.clear();
    await this.client.close().catch(() => {});
  }

  private scheduleRefresh(): void {
    if (this.closed) return;
    if (this.refreshing !== undefined) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.refresh()
      .catch((error: unknown) => {
        // The last good list is kept; the next notification tries again.
        for (const listener of this.refreshFailed) listener(error);
      })
      .finally(() => {
        this.refreshing = undefined;
        if (this.refreshAgain) {
          this.refreshAgain = false;
          this.scheduleRefresh();
        }
      });
  }
}

/** The transport for `spec`, with its reads bounded by `guard` (a custom transport is the caller's). */
function makeTransport(spec: McpServerSpec, stderrTail: { text: string }, guard: McpReadGuard): Transport {
  if ("transport" in spec) return spec.transport;
  if ("url" in spec) {
    const url = spec.url instanceof URL ? spec.url : new URL(spec.url);
    return new StreamableHTTPClientTransport(url, {
      requestInit: spec.headers === undefined ? {} : { headers: { ...spec.headers } },
      fetch: boundedFetch(guard),
    });
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    stderr: "pipe",
    maxBufferSize: guard.limits.maxMessageBytes,
    ...(spec.env === undefined ? {} : { env: { ...spec.env } }),
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
  });
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrTail.text = (stderrTail.text + chunk.toString("utf8")).slice(-STDERR_TAIL);
  });
  return transport;
}

function connectError(spec: McpServerSpec, error: unknown, stderr: string): TinyAgentsError {
  // A crossed bound already names the server and the limit.
  if (error instanceof TinyAgentsError && (error.code === "limit_exceeded" || error.code === "timeout"))
    return error;
  const where = describeServer(spec);
  const reason = redactSecrets(error instanceof Error ? error.message : String(error));
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
      : `\nserver stderr (last lines):\n${redactSecrets(stderr.trim().split("\n").slice(-10).join("\n"))}`;
  return new TinyAgentsError("tool", `could not connect to MCP server ${where}: ${reason}${hint}${tail}`, {
    cause: safeCause(error),
    details: { server: where },
  });
}
