/**
 * @tinyagents/harness/mcp — tools from Model Context Protocol servers (stdio or Streamable HTTP)
 * as harness tools: names sanitized to snake_case (with a mapping back), prefixed on collisions,
 * kept current through `tools/list_changed`, with progress, cancellation and `close()`.
 *
 * Needs the optional peer dependency `@modelcontextprotocol/sdk` (1.32 or newer in the 1.x line).
 * The core package never loads it.
 */

export { DEFAULT_MCP_LIMITS, type McpLimits } from "./mcp-bounds.js";
export {
  McpConnection,
  type McpConnectOptions,
  type McpProgress,
  type McpToolInfo,
} from "./mcp-connection.js";
export { assignToolNames, type McpPrefixMode, type McpToolOrigin } from "./mcp-names.js";
export { type McpCallResult, type McpContent, mapInputSchema, mapMcpResult } from "./mcp-result.js";
export { describeServer } from "./mcp-secrets.js";
export {
  type McpHttpServer,
  type McpServerSpec,
  type McpServerTrust,
  type McpStdioServer,
  type McpTransportServer,
  parseMcpServer,
  splitCommandLine,
} from "./mcp-server-spec.js";
export { DEFAULT_MAX_DESCRIPTION_CHARS, type McpToolOptions, mcpTool } from "./mcp-tool.js";
export { type LoadMcpToolsOptions, loadMcpTools, McpToolset, type ToolTarget } from "./mcp-toolset.js";
export type { McpWarning } from "./mcp-warning.js";
