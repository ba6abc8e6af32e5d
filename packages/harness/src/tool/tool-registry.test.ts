import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "./define-tool.js";
import type { AnyTool } from "./tool.js";
import { ToolRegistry } from "./tool-registry.js";

function make(name: string, description = `the ${name} tool`): AnyTool {
  return tool({ name, description, inputSchema: { type: "object", properties: {} }, execute: () => name });
}

describe("ToolRegistry", () => {
  it("registers, gets, lists sorted names and reports size", () => {
    const registry = new ToolRegistry()
      .register(make("zeta"))
      .register(make("alpha"))
      .register(make("mid_2"));
    expect(registry.size).toBe(3);
    expect(registry.names()).toEqual(["alpha", "mid_2", "zeta"]);
    expect(registry.has("alpha")).toBe(true);
    expect(registry.has("beta")).toBe(false);
    expect(registry.get("zeta")?.name).toBe("zeta");
    expect(registry.get("nope")).toBeUndefined();
    expect(registry.list().map((t) => t.name)).toEqual(["alpha", "mid_2", "zeta"]);
  });

  it("sorts by code unit, independent of registration order and locale", () => {
    const a = new ToolRegistry([make("b_tool"), make("a_tool"), make("a1")]);
    const b = new ToolRegistry([make("a1"), make("a_tool"), make("b_tool")]);
    expect(a.names()).toEqual(["a1", "a_tool", "b_tool"]);
    expect(JSON.stringify(a.schemas())).toBe(JSON.stringify(b.schemas()));
  });

  it("builds tool schemas sorted by name, with strict only when set", () => {
    const strict = tool({
      name: "lookup",
      description: "Look up",
      inputSchema: z.object({ id: z.string() }),
      execute: () => "",
      strict: true,
    });
    const registry = new ToolRegistry([make("search"), strict]);
    expect(registry.schemas()).toEqual([
      {
        name: "lookup",
        description: "Look up",
        parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        strict: true,
      },
      { name: "search", description: "the search tool", parameters: { type: "object", properties: {} } },
    ]);
    expect("strict" in (registry.schemas()[1] ?? {})).toBe(false);
  });

  it("caches schemas: the same array instance until the registry changes", () => {
    const registry = new ToolRegistry([make("a"), make("b")]);
    const first = registry.schemas();
    expect(registry.schemas()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => first.push({ name: "x", description: "", parameters: {} })).toThrow(TypeError);

    const same = registry.get("a") as AnyTool;
    registry.register(same);
    expect(registry.schemas()).toBe(first);

    registry.register(make("c"));
    const second = registry.schemas();
    expect(second).not.toBe(first);
    expect(second.map((s) => s.name)).toEqual(["a", "b", "c"]);
    expect(registry.schemas()).toBe(second);

    expect(registry.unregister("missing")).toBe(false);
    expect(registry.schemas()).toBe(second);
    expect(registry.unregister("b")).toBe(true);
    const third = registry.schemas();
    expect(third).not.toBe(second);
    expect(third.map((s) => s.name)).toEqual(["a", "c"]);
    expect(registry.names()).toEqual(["a", "c"]);
    expect(registry.size).toBe(2);
  });

  it("replaces a tool with the same name and invalidates the cache", () => {
    const registry = new ToolRegistry([make("echo", "old")]);
    const before = registry.schemas();
    const replacement = make("echo", "new");
    registry.register(replacement);
    expect(registry.size).toBe(1);
    expect(registry.get("echo")).toBe(replacement);
    expect(registry.schemas()).not.toBe(before);
    expect(registry.schemas()[0]?.description).toBe("new");
  });

  it("rejects invalid names and non-object schemas of hand-written tools", () => {
    const registry = new ToolRegistry();
    const badName: AnyTool = { ...make("ok"), name: "Bad Name" };
    const badSchema: AnyTool = { ...make("ok"), parameters: { type: "string" } };
    let error: unknown;
    try {
      registry.register(badName);
    } catch (e) {
      error = e;
    }
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as TinyAgentsError).message).toContain('"bad_name"');
    expect(() => registry.register(badSchema)).toThrow(/object of named arguments/);
    expect(registry.size).toBe(0);
  });
});
