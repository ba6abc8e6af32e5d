import type { JsonObject } from "@tinyagents/inference";
import type { Tool } from "../tool/tool.js";
import { suggestToolName } from "../tool/tool-name.js";
import type { ToolRegistry } from "../tool/tool-registry.js";
import { McpConnection, type McpConnectOptions } from "./mcp-connection.js";
import { assignToolNames, type McpPrefixMode, type McpToolOrigin } from "./mcp-names.js";
import type { McpServerSpec } from "./mcp-server-spec.js";
import { type McpToolOptions, mcpTool } from "./mcp-tool.js";
import { defaultMcpWarning, type McpWarning } from "./mcp-warning.js";

/** Options of {@link loadMcpTools}. */
export interface LoadMcpToolsOptions extends McpConnectOptions {
  /** Renamed tools and failed refreshes (default: `process.emitWarning`, one line on stderr). */
  onWarning?: (warning: McpWarning) => void;
  /** Prefix names with the server's name only on collisions (default) or always. */
  prefix?: McpPrefixMode;
  /** Per-call request timeout, reset by progress (default 120 s). */
  callTimeoutMs?: number;
  /** Bound of one call however much progress the server reports (default 10 min). */
  callMaxTotalMs?: number;
  /** Longest tool description the model sees, in characters (default 8,000; longer ones are cut). */
  maxDescriptionChars?: number;
  /** Keep only these tools (MCP names or our names). */
  include?: readonly string[];
}

/** Something tools can be registered into: a `ToolRegistry`, or an `AgentHarness` (its `tools`). */
export type ToolTarget = ToolRegistry<unknown, unknown> | { tools: ToolRegistry<unknown, unknown> };

/**
 * The tools of one or more MCP servers as harness tools, kept current. Build with
 * {@link loadMcpTools}; register with `attach(harness)`; end with `close()` (or `await using`).
 *
 * Tool names are owned: a server's tool never replaces a tool registered by anyone else. A name
 * already taken in an attached registry is reserved, and the server's tool is prefixed with the
 * server's name instead (`evil_http_fetch`), with a `tool_renamed` warning naming both; list
 * changes register and unregister only the tools this toolset registered.
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
  private readonly detachers = new Set<() => void>();
  /** Names owned by others (tools registered in an attached registry by someone else). */
  private readonly reserved = new Set<string>();
  private readonly warned = new Set<string>();
  private readonly warn: (warning: McpWarning) => void;

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
    this.warn = options.onWarning ?? defaultMcpWarning;
    this.rebuild();
    connections.forEach((connection, i) => {
      this.unsubscribe.push(connection.onToolsChanged(() => this.changed()));
      this.unsubscribe.push(
        connection.onRefreshFailed((error) =>
          this.warn({
            code: "refresh_failed",
            server: this.serverNames[i] as string,
            message: `MCP server ${this.serverNames[i]} changed its tools but re-listing them failed (the last good list is kept): ${error instanceof Error ? error.message : String(error)}`,
          }),
        ),
      );
    });
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
   * are unregistered, new ones registered). Tools already in `target` stay: a server's tool of
   * the same name is renamed (see the class). Only tools this toolset registered are ever
   * unregistered, and only while `target` still holds them. Returns a function that stops
   * following and unregisters them; `close()` does the same.
   */
  attach(target: ToolTarget): () => void {
    const registry =
      "tools" in target && !("register" in target)
        ? target.tools
        : (target as ToolRegistry<unknown, unknown>);
    /** What this toolset registered here, by name. */
    const ours = new Map<string, Tool<unknown, unknown, JsonObject>>();
    const sync = (): void => {
      // A name held by a tool we did not register is someone else's (now, or from now on).
      const foreign = registry.names().filter((name) => registry.get(name) !== ours.get(name));
      if (this.reserve(foreign)) return; // renamed: every attached registry (this one too) re-synced
      const next = new Map(this.current.map((t) => [t.name, t]));
      for (const [name, tool] of ours) {
        if (next.get(name) === tool) continue;
        if (registry.get(name) === tool) registry.unregister(name);
        ours.delete(name);
      }
      for (const [name, tool] of next) {
        if (ours.has(name) || registry.has(name)) continue;
        registry.register(tool);
        ours.set(name, tool);
      }
    };
    const stop = this.onChange(sync);
    sync();
    const detach = () => {
      stop();
      this.detachers.delete(detach);
      for (const [name, tool] of ours) if (registry.get(name) === tool) registry.unregister(name);
      ours.clear();
    };
    this.detachers.add(detach);
    return detach;
  }

  /** Re-list every server's tools now. */
  async refresh(): Promise<void> {
    await Promise.all(this.connections.map((c) => c.refresh()));
  }

  /**
   * Close every server connection (stdio servers' processes end) and unregister the tools from
   * every attached registry, so none is left calling a closed server. Idempotent.
   */
  async close(): Promise<void> {
    for (const detach of [...this.detachers]) detach();
    for (const stop of this.unsubscribe.splice(0)) stop();
    this.listeners.clear();
    await Promise.all(this.connections.map((c) => c.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private changed(): void {
    this.rebuild();
    for (const listener of [...this.listeners]) listener(this.current);
  }

  /** Reserve `names` for their owners; if any is new, rebuild (renaming clashes) and re-sync every attached registry. */
  private reserve(names: readonly string[]): boolean {
    const fresh = names.filter((name) => !this.reserved.has(name));
    if (fresh.length === 0) return false;
    for (const name of fresh) this.reserved.add(name);
    this.changed();
    return true;
  }

  private rebuild(): void {
    const include = this.options.include === undefined ? undefined : new Set(this.options.include);
    const servers = this.connections.map((c, i) => ({
      server: this.serverNames[i] as string,
      tools: c.tools.map((t) => t.name),
    }));
    const all = assignToolNames(servers, this.options.prefix, this.reserved);
    const origins = new Map<string, McpToolOrigin>();
    const tools: Tool<unknown, unknown, JsonObject>[] = [];
    for (const [name, origin] of all) {
      if (include !== undefined && !include.has(name) && !include.has(origin.mcpName)) continue;
      const connection = this.connections[this.serverNames.indexOf(origin.server)];
      const info = connection?.tools.find((t) => t.name === origin.mcpName);
      if (connection === undefined || info === undefined) continue;
      origins.set(name, origin);
      const spec = connection.spec;
      tools.push(
        mcpTool(name, info, connection, {
          ...toolOptions(this.options),
          trustAnnotations: spec.trustAnnotations === true,
          readOnly: spec.readOnlyTools?.includes(info.name) === true,
        }),
      );
      const wanted = suggestToolName(origin.mcpName);
      const key = `${origin.server}\u0000${origin.mcpName}\u0000${name}`;
      if (this.reserved.has(wanted) && !this.warned.has(key)) {
        this.warned.add(key);
        this.warn({
          code: "tool_renamed",
          server: origin.server,
          tool: origin.mcpName,
          name,
          message: `MCP server ${origin.server} offers a tool "${origin.mcpName}", but "${wanted}" is already registered here: the registered "${wanted}" is kept and the server's tool is registered as "${name}"`,
        });
      }
    }
    tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.current = tools;
    this.origins = origins;
  }
}

/** The per-tool options of `options` that are set. */
function toolOptions(options: LoadMcpToolsOptions): McpToolOptions {
  const out: McpToolOptions = {};
  if (options.callTimeoutMs !== undefined) out.callTimeoutMs = options.callTimeoutMs;
  if (options.callMaxTotalMs !== undefined) out.callMaxTotalMs = options.callMaxTotalMs;
  if (options.maxDescriptionChars !== undefined) out.maxDescriptionChars = options.maxDescriptionChars;
  return out;
}

/**
 * Connect to MCP servers (stdio commands, Streamable HTTP URLs or custom transports) and load
 * their tools. Servers are connected in parallel; if any fails, the others are closed and the
 * error names the server. Two servers reporting the same name get `_2`-suffixed names.
 *
 * ```ts
 * const mcp = await loadMcpTools([{ command: "npx", args: ["-y", "@modelcontextprotocol/server-everything"] }]);
 * const detach = mcp.attach(agent);
 * try { await agent.run("add 2 and 3 with get_sum"); } finally { await mcp.close(); }
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
