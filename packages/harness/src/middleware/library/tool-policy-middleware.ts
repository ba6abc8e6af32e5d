import type { ToolCall } from "@tinyagents/inference";
import type { ToolPolicy, ToolSideEffect } from "../../tool/tool.js";
import { assertToolPolicy, TOOL_SIDE_EFFECTS } from "../../tool/tool-policy.js";
import type { HookContext, Middleware } from "../middleware.js";
import { middlewareName, nonNegative, optionError } from "./option-checks.js";
import { hideTools, RegisteredNames, type ToolNames, toolCallRejected } from "./tool-filter.js";
import { truncateResult } from "./truncate-result.js";

/** Options of {@link toolPolicyMiddleware}: what this run permits. */
export interface ToolPolicyOptions {
  /** Side effects the run permits (default: all). A tool declaring another one is denied. */
  allowSideEffects?: ToolSideEffect[];
  /**
   * Tools with `requiresApproval`: `"deny"` (default) hides and rejects them; `"defer"` lets them
   * through to an approval flow (`humanApprovalMiddleware`).
   */
  approval?: "deny" | "defer";
  /** Whether a sandbox is in place (default: the run has a workspace, `ctx.run.workspace`). */
  sandboxAvailable?: boolean;
  /** Deny tools that declare no policy (default false). */
  requireClassification?: boolean;
  /** Cap on every result in UTF-8 bytes; a tool's own `policy.maxResultBytes` applies when smaller. */
  maxResultBytes?: number;
  /** Policies by tool name, replacing the tools' own `policy`. */
  policies?: Record<string, ToolPolicy>;
  /** Tool registry for checking `policies` names at construction (else checked at first use). */
  registry?: ToolNames;
  /** Middleware name (default `"tool_policy"`). */
  name?: string;
}

/**
 * Enforces tools' declared {@link ToolPolicy} against what the run permits, at both ends:
 * `beforeModel` hides tools the run cannot use (`tools.filtered`), `beforeTool` rejects calls to
 * them with `validation` (fails the run), `afterTool` truncates results over the byte cap.
 * A tool is denied when its side effects are not allowed, it needs approval and `approval` is
 * `"deny"`, it needs a sandbox and none is available, or it has no policy and
 * `requireClassification` is on. Declares `changes: "prefix"` (it edits the tool declarations).
 * Throws `validation` at construction for unknown side effects, bad policies, negative caps, or
 * `policies` naming unregistered tools (with `registry`; else at first use).
 */
export function toolPolicyMiddleware<State = unknown, Ctx = unknown>(
  options: ToolPolicyOptions = {},
): Middleware<State, Ctx> {
  const name = middlewareName("tool_policy", options.name);
  if (options.allowSideEffects !== undefined && !Array.isArray(options.allowSideEffects)) {
    throw optionError(name, "allowSideEffects", `must be an array of ${TOOL_SIDE_EFFECTS.join(", ")}`);
  }
  const allowed = new Set<ToolSideEffect>(options.allowSideEffects ?? TOOL_SIDE_EFFECTS);
  for (const effect of allowed) {
    if (!TOOL_SIDE_EFFECTS.includes(effect)) {
      throw optionError(
        name,
        "allowSideEffects",
        `has unknown side effect ${JSON.stringify(effect)}; use ${TOOL_SIDE_EFFECTS.join(", ")}`,
      );
    }
  }
  const approval = options.approval ?? "deny";
  if (approval !== "deny" && approval !== "defer")
    throw optionError(name, "approval", 'must be "deny" or "defer"');
  const cap =
    options.maxResultBytes === undefined
      ? undefined
      : nonNegative(name, "maxResultBytes", options.maxResultBytes, true);
  const overrides = new Map<string, ToolPolicy>();
  for (const [tool, policy] of Object.entries(options.policies ?? {})) {
    try {
      assertToolPolicy(policy, tool);
    } catch (error) {
      throw optionError(name, `policies.${tool}`, (error as Error).message);
    }
    overrides.set(tool, policy);
  }
  const known = new RegisteredNames(name, "policies", [...overrides.keys()], options.registry);

  const policyOf = (ctx: HookContext<State, Ctx>, tool: string): ToolPolicy | undefined =>
    overrides.get(tool) ?? ctx.tools?.get(tool)?.policy;
  /** Why `tool` is denied in this run, or undefined when it is permitted. */
  const denial = (ctx: HookContext<State, Ctx>, tool: string): string | undefined => {
    const policy = policyOf(ctx, tool);
    if (policy === undefined)
      return options.requireClassification === true ? "it declares no policy" : undefined;
    if (policy.sideEffects !== undefined && !allowed.has(policy.sideEffects)) {
      return `its side effects ("${policy.sideEffects}") are not allowed in this run`;
    }
    if (policy.requiresApproval === true && approval === "deny")
      return "it requires approval and approval is denied";
    const sandbox = options.sandboxAvailable ?? ctx.run.workspace !== undefined;
    if (policy.requiresSandbox === true && !sandbox) return "it requires a sandbox and the run has none";
    return undefined;
  };

  return {
    name,
    changes: "prefix",
    beforeModel(ctx, request) {
      known.ensure(ctx);
      return hideTools(ctx, request, name, (tool) => denial(ctx, tool) === undefined);
    },
    beforeTool(ctx, call: ToolCall) {
      known.ensure(ctx);
      const why = denial(ctx, call.name);
      if (why !== undefined) throw toolCallRejected(name, call, why);
    },
    afterTool(ctx, result) {
      const own = policyOf(ctx, result.toolName)?.maxResultBytes;
      const limit = own === undefined ? cap : cap === undefined ? own : Math.min(own, cap);
      return limit === undefined ? undefined : truncateResult(result, limit);
    },
  };
}
