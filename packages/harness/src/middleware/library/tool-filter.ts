import { type ModelRequest, TinyAgentsError, type ToolCall, type ToolSchema } from "@tinyagents/inference";
import type { HookContext } from "../middleware.js";
import { optionError } from "./option-checks.js";

/**
 * Hide tools from a model request. Returns a copy of `request` whose `tools` keep only the names
 * `keep` accepts (the `tools` key removed when none remain; a `toolChoice` forcing a hidden tool
 * is dropped), after emitting `tools.filtered { by, excluded, remaining }`. Returns `undefined`
 * (nothing to change, no event) when every tool is kept. Never mutates the registry's frozen array.
 */
export function hideTools<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  request: ModelRequest,
  by: string,
  keep: (name: string) => boolean,
): ModelRequest | undefined {
  const tools = request.tools;
  if (tools === undefined || tools.length === 0) return undefined;
  const remaining: ToolSchema[] = [];
  const excluded: string[] = [];
  for (const tool of tools) {
    if (keep(tool.name)) remaining.push(tool);
    else excluded.push(tool.name);
  }
  if (excluded.length === 0) return undefined;
  ctx.run.emit({ type: "tools.filtered", by, excluded, remaining: remaining.map((t) => t.name) });
  const { tools: _dropped, toolChoice, ...rest } = request;
  const next: ModelRequest = rest;
  if (remaining.length > 0) next.tools = remaining;
  const forced = typeof toolChoice === "object" ? toolChoice.name : undefined;
  const keepChoice =
    toolChoice !== undefined &&
    (forced === undefined
      ? remaining.length > 0 || toolChoice === "none" || toolChoice === "auto"
      : keep(forced));
  if (keepChoice) next.toolChoice = toolChoice;
  return next;
}

/** The `validation` error for a tool call a governance middleware refuses (fails the run, fail-closed). */
export function toolCallRejected(by: string, call: ToolCall, why: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `middleware "${by}" rejected the call to tool "${call.name}": ${why}`,
    {
      details: { middleware: by, tool: call.name, callId: call.id },
    },
  );
}

/** What name checks need from a tool registry (a `ToolRegistry` or `ctx.tools`). */
export interface ToolNames {
  has(name: string): boolean;
  names(): readonly string[];
}

/**
 * Checks that tool names given in an option are registered: at once when a registry is given at
 * construction, else the first time a hook runs with `ctx.tools`. Unknown names fail with a
 * `validation` error naming the middleware, the option and the names.
 */
export class RegisteredNames {
  private checked = false;
  private readonly middleware: string;
  private readonly option: string;
  private readonly names: readonly string[];

  constructor(middleware: string, option: string, names: readonly string[], registry?: ToolNames) {
    this.middleware = middleware;
    this.option = option;
    this.names = names;
    if (registry !== undefined) this.check(registry);
  }

  /** Check against `ctx.tools` once (no-op afterwards or when the context has no registry view). */
  ensure<State, Ctx>(ctx: HookContext<State, Ctx>): void {
    if (!this.checked && ctx.tools !== undefined) this.check(ctx.tools);
  }

  private check(registry: ToolNames): void {
    this.checked = true;
    const unknown = this.names.filter((name) => !registry.has(name));
    if (unknown.length === 0) return;
    const registered = registry.names().join(", ") || "(none)";
    throw optionError(
      this.middleware,
      this.option,
      `names tools that are not registered: ${unknown.join(", ")} (registered: ${registered}); fix the names or register the tools`,
      { unknown },
    );
  }
}
