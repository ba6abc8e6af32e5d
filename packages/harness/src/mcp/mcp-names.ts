import { MAX_TOOL_NAME_LENGTH, suggestToolName } from "../tool/tool-name.js";

/** Where a tool name the model sees came from. */
export interface McpToolOrigin {
  /** The server's name (as configured, else as it reported itself). */
  server: string;
  /** The tool's name on that server (`get-sum`). */
  mcpName: string;
}

/** How tool names are prefixed with their server's name. */
export type McpPrefixMode = "on_collision" | "always";

/**
 * Give every MCP tool a valid, unique snake_case name: each name is sanitized
 * (`get-sum` -> `get_sum`, `getWeather` -> `get_weather`); a name offered by more than one
 * server (or every name, with `"always"`) gets the server's sanitized name as a prefix
 * (`everything_echo`); remaining clashes get `_2`, `_3`... Names stay within 64 characters.
 * `reserved` names belong to someone else (tools already registered): a tool named like one is
 * prefixed too, and never gets a reserved name.
 * Returns the mapping from our name to its origin, in server order.
 */
export function assignToolNames(
  servers: readonly { server: string; tools: readonly string[] }[],
  mode: McpPrefixMode = "on_collision",
  reserved: ReadonlySet<string> = new Set(),
): Map<string, McpToolOrigin> {
  const owners = new Map<string, Set<string>>();
  for (const { server, tools } of servers) {
    for (const tool of tools) {
      const base = suggestToolName(tool);
      let set = owners.get(base);
      if (set === undefined) {
        set = new Set();
        owners.set(base, set);
      }
      set.add(server);
    }
  }
  const out = new Map<string, McpToolOrigin>();
  for (const { server, tools } of servers) {
    const prefix = suggestToolName(server);
    for (const mcpName of tools) {
      const base = suggestToolName(mcpName);
      const shared = (owners.get(base)?.size ?? 0) > 1 || reserved.has(base);
      const first = mode === "always" || shared ? fit(`${prefix}_${base}`) : base;
      let name = first;
      for (let n = 2; out.has(name) || reserved.has(name); n++) name = fit(first, `_${n}`);
      out.set(name, { server, mcpName });
    }
  }
  return out;
}

function fit(name: string, suffix = ""): string {
  return `${name.slice(0, MAX_TOOL_NAME_LENGTH - suffix.length).replace(/_+$/, "")}${suffix}`;
}
