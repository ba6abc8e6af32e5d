import type { JsonObject } from "@tinyagents/inference";
import { compileSchema } from "../tool/json-schema-validator.js";
import type { Tool, ToolPolicy } from "../tool/tool.js";
import type { McpConnection, McpToolInfo } from "./mcp-connection.js";
import { mapInputSchema, mapMcpResult } from "./mcp-result.js";

/** Options of {@link mcpTool}. */
export interface McpToolOptions {
  /** Per-call request timeout, reset by progress notifications (default 120 s). */
  callTimeoutMs?: number;
  /** Bound of one call however much progress the server reports (default 10 min). */
  callMaxTotalMs?: number;
  /** Believe the server's annotations (default false: see {@link mcpTool}). */
  trustAnnotations?: boolean;
  /** The application declares this tool read-only (its policy is `read` whatever the server says). */
  readOnly?: boolean;
  /**
   * Longest description (in characters) the model sees; a longer one is cut with a note. The
   * server's text goes into every prompt: a peer must not flood it. Default 8,000.
   */
  maxDescriptionChars?: number;
}

/** The default of {@link McpToolOptions.maxDescriptionChars}. */
export const DEFAULT_MAX_DESCRIPTION_CHARS = 8_000;

/**
 * A harness {@link Tool} that calls `info.name` on `connection` under our `name` (a valid
 * snake_case name; the MCP name may be anything). The JSON Schema is the server's (`$schema`
 * dropped), validated with the built-in validator before the call. The policy is derived from
 * who is trusted: `readOnly` (the application's own word) -> `read`; otherwise, from an
 * untrusted server (the default), `destructive` whatever its annotations say, since they are
 * only hints; with `trustAnnotations`, `readOnlyHint` -> `read` unless `destructiveHint` is
 * also true (destructive wins), else `destructiveHint` (MCP's default is true) -> `destructive`,
 * else `openWorldHint` -> `external`, else `write`; and `idempotentHint` sets `idempotent`.
 * The call passes the run's abort signal and forwards progress notifications to `ctx.progress`.
 */
export function mcpTool(
  name: string,
  info: McpToolInfo,
  connection: McpConnection,
  options: McpToolOptions = {},
): Tool<unknown, unknown, JsonObject> {
  const parameters = mapInputSchema(info.inputSchema);
  const schema = compileSchema(parameters); // once per tool, not per call
  const annotations = info.annotations ?? {};
  const full =
    (info.description ?? info.title ?? "").trim() ||
    `The ${info.name} tool of the ${connection.name} MCP server.`;
  const max = options.maxDescriptionChars ?? DEFAULT_MAX_DESCRIPTION_CHARS;
  const description =
    full.length <= max
      ? full
      : `${full.slice(0, max)}… [description cut at ${max} of ${full.length} characters]`;
  const built: Tool<unknown, unknown, JsonObject> = {
    name,
    description,
    parameters,
    policy: policyFrom(annotations, options),
    validate: (args) => {
      const issues = schema.validate(args);
      return issues.length === 0 ? { ok: true, value: args } : { ok: false, issues };
    },
    execute: async (args, ctx) => {
      const result = await connection.callTool(info.name, args, {
        signal: ctx.signal,
        ...(options.callTimeoutMs === undefined ? {} : { timeoutMs: options.callTimeoutMs }),
        ...(options.callMaxTotalMs === undefined ? {} : { maxTotalMs: options.callMaxTotalMs }),
        onProgress: (p) => {
          const total = p.total === undefined ? "" : `/${p.total}`;
          ctx.progress(p.message ?? `${p.progress}${total}`, {
            progress: p.progress,
            ...(p.total === undefined ? {} : { total: p.total }),
          });
        },
      });
      return mapMcpResult(result);
    },
  };
  // Idempotent tools may be retried: only a trusted server's hint may say so.
  if (options.trustAnnotations === true && annotations.idempotentHint === true)
    Object.assign(built, { idempotent: true });
  return built;
}

function policyFrom(a: NonNullable<McpToolInfo["annotations"]>, options: McpToolOptions): ToolPolicy {
  if (options.readOnly === true) return { sideEffects: "read" };
  if (options.trustAnnotations !== true) return { sideEffects: "destructive" };
  if (a.readOnlyHint === true && a.destructiveHint !== true) return { sideEffects: "read" };
  if (a.destructiveHint !== false) return { sideEffects: "destructive" };
  if (a.openWorldHint !== false) return { sideEffects: "external" };
  return { sideEffects: "write" };
}
