import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { ToolRegistry } from "../../tool/tool-registry.js";
import { runAgent, setup } from "./harness.fixture.js";
import { toolAllowlistMiddleware } from "./tool-allowlist-middleware.js";

describe("toolAllowlistMiddleware", () => {
  it("hides tools outside the list from the model and reports it", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([{ toolCalls: [{ name: "search" }] }, "done"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("search", "ok"))
      .registerTool(FakeTool.returning("delete_all", "gone"))
      .use(toolAllowlistMiddleware({ allow: ["search"], registry: harness.tools }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.requests.map((r) => r.tools?.map((t) => t.name))).toEqual([["search"], ["search"]]);
    expect(events.ofType("tools.filtered")[0]).toEqual({
      type: "tools.filtered",
      by: "tool_allowlist",
      excluded: ["delete_all"],
      remaining: ["search"],
    });
  });

  it("rejects a call to a registered tool outside the list with validation (the tool never runs)", async () => {
    const { harness } = setup();
    const danger = FakeTool.returning("delete_all", "gone");
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "delete_all" }] }]))
      .registerTool(FakeTool.returning("search", "ok"))
      .registerTool(danger)
      .use(toolAllowlistMiddleware({ allow: ["search"] }));
    const { error } = await runAgent(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain('"delete_all"');
    expect(error?.details).toMatchObject({ middleware: "tool_allowlist", tool: "delete_all" });
    expect(danger.callCount).toBe(0);
  });

  it("leaves calls to unregistered tools to the unknown-tool policy", async () => {
    const { harness } = setup();
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "made_up" }] }, "done"]))
      .registerTool(FakeTool.returning("search", "ok"))
      .use(toolAllowlistMiddleware({ allow: ["search"] }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(events.ofType("tool.unknown")).toHaveLength(1);
  });

  it("rejects unknown names: at construction with a registry, else at first use", async () => {
    const registry = new ToolRegistry([FakeTool.returning("search", "ok")]);
    expect(() => toolAllowlistMiddleware({ allow: ["serach"], registry })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "tool_allowlist", option: "allow", unknown: ["serach"] },
      }),
    );
    expect(() => toolAllowlistMiddleware({ allow: "search" as unknown as string[] })).toThrow(/allow/);

    const { harness } = setup();
    const model = new ScriptedModel(["unused"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("search", "ok"))
      .use(toolAllowlistMiddleware({ allow: ["serach"] }));
    const { error } = await runAgent(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain("serach");
    expect(model.callCount).toBe(0);
  });
});
