/** Something about an MCP server that the application should know, though nothing failed. */
export interface McpWarning {
  /**
   * - `tool_renamed`: a server offers a tool named like one already registered; the registered
   *   tool is kept and the server's tool gets another name (`name`).
   * - `refresh_failed`: re-listing after `tools/list_changed` failed (a bound, a timeout, a
   *   broken server); the last good list is kept.
   */
  code: "tool_renamed" | "refresh_failed";
  message: string;
  /** The server's name. */
  server: string;
  /** The tool's MCP name (`tool_renamed`). */
  tool?: string;
  /** The name the tool got instead (`tool_renamed`). */
  name?: string;
}

/** Where MCP warnings go by default: one line on stderr. */
export function defaultMcpWarning(warning: McpWarning): void {
  process.emitWarning(warning.message, { code: `TINYAGENTS_MCP_${warning.code.toUpperCase()}` });
}
