import type { Middleware } from "../middleware.js";
import { middlewareName, optionError, stringList } from "./option-checks.js";
import { hideTools, RegisteredNames, type ToolNames, toolCallRejected } from "./tool-filter.js";

/** Options of {@link toolAllowlistMiddleware}. */
export interface ToolAllowlistOptions {
  /** The only tools the model may see and call. */
  allow: string[];
  /**
   * The harness's tool registry (`harness.tools`): unknown names in `allow` then fail at
   * construction. Without it they fail at the first model call.
   */
  registry?: ToolNames;
  /** Middleware name (default `"tool_allowlist"`). */
  name?: string;
}

/**
 * Restricts a run to a fixed set of tools: `beforeModel` hides the others from the model
 * (`tools.filtered`), `beforeTool` rejects a call to a registered tool outside the list with a
 * `validation` error that fails the run (fail-closed). Calls to unregistered tools are left to the
 * harness's unknown-tool policy. Declares `changes: "prefix"` (it edits the tool declarations,
 * identically on every call).
 * Throws `validation` naming `allow` for a non-list, or for names that are not registered.
 */
export function toolAllowlistMiddleware<State = unknown, Ctx = unknown>(
  options: ToolAllowlistOptions,
): Middleware<State, Ctx> {
  const name = middlewareName("tool_allowlist", options?.name);
  if (typeof options !== "object" || options === null) {
    throw optionError(name, "allow", 'is required: toolAllowlistMiddleware({ allow: ["search"] })');
  }
  const allow = new Set(stringList(name, "allow", options.allow));
  const known = new RegisteredNames(name, "allow", [...allow], options.registry);
  return {
    name,
    changes: "prefix",
    beforeModel(ctx, request) {
      known.ensure(ctx);
      return hideTools(ctx, request, name, (tool) => allow.has(tool));
    },
    beforeTool(ctx, call) {
      known.ensure(ctx);
      if (allow.has(call.name) || ctx.tools?.has(call.name) === false) return;
      throw toolCallRejected(name, call, `it is not in the allowlist (${[...allow].join(", ") || "empty"})`);
    },
  };
}
