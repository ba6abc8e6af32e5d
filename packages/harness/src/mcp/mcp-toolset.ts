import type { JsonObject } from "@tinyagents/inference";
import type { Tool } from "../tool/tool.js";
import type { ToolRegistry } from "../tool/tool-registry.js";
import { McpConnection, type McpConnectOptions } from "./mcp-connection.js";
import { assignToolNames, type McpPrefixMode, type McpToolOrigin } from "./mcp-names.js";
import type { McpServerSpec } from "./mcp-server-spec.js";
import { mcpTool } from "./mcp-tool.js";

/** Options of {@link loadMcpTools}. */
export interface LoadMcpToolsOptions extends McpConnectOptions {
  /** Prefix names with the server's name only on collisions (default) or always. */
  prefix?: McpPrefixMode;
  /** Per-call request timeout, reset by progress (default 120 s). */
  callTimeoutMs?: number;
  /** Keep only these tools (MCP names or our names). */
  include?: readonly string[];
}

/** Something tools can be registered into: a `ToolRegistry`, or an `AgentHarness` (its `tools`). */
export type ToolTarget = ToolRegistry<unknown, unknown> | { tools: ToolRegistry<unknown, unknown> };

/**
 * The tools of one or more MCP servers as harness tools, kept current. Build with
 * {@link loadMcpTools}; register with `attach(harness)`; end with `close()` (or `await using`).
 */
export class McpToolset {
  readonly connections: readonly McpConnection[];
  /** The name each connection is known by here (`connections[i]`): its own, `_2`-suffixed when two servers share one. */
  readonly serverNames: readonly string[];
  private readonly options: LoadMcpToolsOptions;
  private current: Tool<unknown, unknown, JsonObject>[] = [];
  private origins = new Map<string, McpToolOrigin>();
  private readonly listeners = new Set<(tools: readonly Tool<unknown, unknown, JsonObject>[]) => void>();
  private readonly unsubscribe: (() => void)[] = [];

  /** @internal Use {@link loadMcpTools}. */
  constructor(connections: readonly McpConnection[], options: LoadMcpToolsOptions) {
    this.connections = connections;
    const seen = new Map<string, number>();
    this.serverNames = connections.map((c) => {
      const n = (seen.get(c.name) ?? 0) + 1;
      seen.set(c.name, n);
      return n === 1 ? c.name : `${c.name}_${n}`;
    });
    this.options = options;
    this.rebuild();
    for (const connection of connections) {
      this.unsubscribe.push(connection.onToolsChanged(() => this.changed()));
    }
  }

  /** The tools now, sorted by name. */
  get tools(): readonly Tool<unknown, unknown, JsonObject>[] {
    return this.current;
  }

  /** Our tool name -> the server and MCP tool name behind it. */
  get names(): ReadonlyMap<string, McpToolOrigin> {
    return this.origins;
  }

  /** Called with the new list whenever a server's tool list changed. Returns an unsubscribe function. */
  onChange(listener: (tools: readonly Tool<unknown, unknown, JsonObject>[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Register the tools into `target` and keep it in step with `tools/list_changed` (removed tools
   * are unregistered, new ones registered). Returns a function that stops following and
   * unregisters them.
   */
  attach(target: ToolTarget): () => void {
    const registry =
      "tools" in target && !("register" in target)
        ? target.tools
        : (target as ToolRegistry<unknown, unknown>);
    let registered = new Set<string>();
    const sync = (tools: readonly Tool<unknown, unknown, JsonObject>[]) => {
      const next = new Set(tools.map((t) => t.name));
      for (const name of registered) if (!next.has(name)) registry.unregister(name);
      for (const t of tools) registry.register(t);
      registered = next;
    };
    sync(this.current);
    const stop = this.onChange(sync);
    return () => {
      stop();
      for (const name of registered) registry.unregister(name);
      registered = new Set();
    };
  }

  /** Re-list every server's tools now. */
  async refresh(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.refresh()));
  }

  /** Close every server connection (stdio servers' processes end). Idempotent. */
  async close(): Promise<void> {
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.listeners.clear();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private changed(): void {
    this.rebuild();
    for (const listener of this.listeners) listener(this.current);
  }

  private rebuild(): void {
    const include = this.options.include === undefined ? undefined : new Set(this.options.include);
    const servers = this.connections.map((c, i) => ({
      server: this.serverNames[i] as string,
      tools: c.tools.map((t) => t.name),
    }));
    const all = assignToolNames(servers, this.options.prefix);
    const origins = new Map<string, McpToolOrigin>();
    const tools: Tool<unknown, unknown, JsonObject>[] = [];
    for (const [name, origin] of all) {
      if (include !== undefined && !include.has(name) && !include.has(origin.mcpName)) continue;
      const connection = this.connections[this.serverNames.indexOf(origin.server)];
      const info = connection?.tools.find((t) => t.name === origin.mcpName);
      if (connection === undefined || info === undefined) continue;
      origins.set(name, origin);
      tools.push(
        mcpTool(
          name,
          info,
          connection,
          this.options.callTimeoutMs === undefined ? {} : { callTimeoutMs: this.options.callTimeoutMs },
        ),
      );
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.current = tools;
    this.origins = origins;
  }
}

/**
 * Connect to MCP servers (stdio commands, Streamable HTTP URLs or custom transports) and load
 * their tools. Servers are connected in parallel; if any fails, the others are closed and the
 * error names the server. Two servers reporting the same name get `_2`-suffixed names.
 *
 * ```ts
 * const mcp = await loadMcpTools([{ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }]);
 * const detach = mcp.attach(harness);
 * try { await harness.invokeDefault(undefined, "add 2 and 3 with get_sum"); } finally { await mcp.close(); }
 * ```
 */
export async function loadMcpTools(
  servers: McpServerSpec | readonly McpServerSpec[],
  options: LoadMcpToolsOptions = {},
): Promise<McpToolset> {
  const list: readonly McpServerSpec[] = Array.isArray(servers) ? servers : [servers as McpServerSpec];
  const settled = await Promise.allSettled(list.map((spec) => McpConnection.open(spec, options)));
  const opened = settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed !== undefined) {
    await Promise.all(opened.map((c) => c.close()));
    throw failed.reason;
  }
  return new McpToolset(opened, options);
}
