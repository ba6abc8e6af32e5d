import type { ToolSchema } from "@tinyagents/inference";
import { assertObjectSchema } from "./json-schema-validator.js";
import type { AnyTool } from "./tool.js";
import { assertToolName } from "./tool-name.js";

/**
 * The tools an agent can call, by name.
 *
 * Contract: `register` checks the name (ASCII snake_case) and that `parameters` describes an
 * object, and replaces a tool of the same name. Listings are sorted by name so the tools block
 * of a prompt is byte-stable across runs (prompt-cache friendly). `schemas()` is computed once
 * per change and returns the SAME frozen array instance until the next `register`/`unregister`
 * that changes something, so callers can detect change with `!==`.
 */
export class ToolRegistry<State = unknown, Ctx = unknown> {
  private readonly tools = new Map<string, AnyTool<State, Ctx>>();
  private cachedSchemas: ToolSchema[] | undefined;
  private cachedNames: readonly string[] | undefined;

  /** Build a registry holding `tools` (registered in order; later duplicates win). */
  constructor(tools: Iterable<AnyTool<State, Ctx>> = []) {
    for (const tool of tools) this.register(tool);
  }

  /**
   * Add `tool`, replacing any tool with the same name. Throws a `validation` error when the
   * name is not snake_case or the schema is not an object schema. Re-registering the very same
   * tool object changes nothing (the schema cache is kept). Returns `this` for chaining.
   */
  register(tool: AnyTool<State, Ctx>): this {
    assertToolName(tool.name);
    assertObjectSchema(tool.parameters, tool.name);
    if (this.tools.get(tool.name) === tool) return this;
    this.tools.set(tool.name, tool);
    this.invalidate();
    return this;
  }

  /** Remove the tool called `name`. Returns whether one was removed. */
  unregister(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.invalidate();
    return removed;
  }

  /** The tool called `name`, or `undefined`. */
  get(name: string): AnyTool<State, Ctx> | undefined {
    return this.tools.get(name);
  }

  /** Whether a tool called `name` is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** How many tools are registered. */
  get size(): number {
    return this.tools.size;
  }

  /** Registered tool names, sorted (code-unit order, locale-independent). Cached like `schemas()`. */
  names(): readonly string[] {
    this.cachedNames ??= Object.freeze([...this.tools.keys()].sort(compareNames));
    return this.cachedNames;
  }

  /** The registered tools, sorted by name. A fresh array each call. */
  list(): AnyTool<State, Ctx>[] {
    return this.names().map((name) => this.tools.get(name) as AnyTool<State, Ctx>);
  }

  /**
   * The model-facing declarations of all tools, sorted by name, ready for `ModelRequest.tools`.
   * The same array instance is returned until the registry changes. The array and its entries
   * are frozen at runtime (mutating them throws): copy before editing. `strict` is present only
   * for tools that set it.
   */
  schemas(): ToolSchema[] {
    this.cachedSchemas ??= Object.freeze(
      this.list().map((tool) => {
        const schema: ToolSchema = {
          name: tool.name,
          description: tool.description,
          parameters: tool.parameters,
        };
        if (tool.strict !== undefined) schema.strict = tool.strict;
        return Object.freeze(schema);
      }),
    ) as ToolSchema[];
    return this.cachedSchemas;
  }

  private invalidate(): void {
    this.cachedSchemas = undefined;
    this.cachedNames = undefined;
  }
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
