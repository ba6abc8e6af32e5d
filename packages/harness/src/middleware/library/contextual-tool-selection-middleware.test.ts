import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import {
  contextualToolSelectionMiddleware,
  inheritToolSelection,
} from "./contextual-tool-selection-middleware.js";
import { runAgent, setup } from "./harness.fixture.js";

function harnessWith(names: string[], model: ScriptedModel) {
  const { harness } = setup();
  harness.registerModel("m", model);
  for (const name of names) harness.registerTool(FakeTool.returning(name, "ok"));
  return harness;
}

describe("contextualToolSelectionMiddleware", () => {
  it("decides per call from the run context (tags here) and reports what it hid", async () => {
    const model = new ScriptedModel(["done", "done"]);
    const harness = harnessWith(["admin_reset", "search"], model).use(
      contextualToolSelectionMiddleware(
        ({ toolName, tags }) => !toolName.startsWith("admin_") || tags.includes("admin"),
      ),
    );
    const plain = await runAgent(harness, "hi");
    await runAgent(harness, "hi", { config: { tags: ["admin"] } });
    expect(model.requests.map((r) => r.tools?.map((t) => t.name))).toEqual([
      ["search"],
      ["admin_reset", "search"],
    ]);
    expect(plain.events.ofType("tools.filtered")).toEqual([
      {
        type: "tools.filtered",
        by: "contextual_tool_selection",
        excluded: ["admin_reset"],
        remaining: ["search"],
      },
    ]);
  });

  it("rejects a call to a tool hidden from the run's last request", async () => {
    const tool = FakeTool.returning("secret", "ok");
    const { harness } = setup();
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "secret" }] }]))
      .registerTool(tool)
      .registerTool(FakeTool.returning("search", "ok"))
      .use(contextualToolSelectionMiddleware({ deny: ["secret"] }));
    const { error } = await runAgent(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(tool.callCount).toBe(0);
  });

  it("inheriting: a child can only narrow (allow = intersection, deny = union)", async () => {
    expect(inheritToolSelection(["a", "b", "c"], ["c"], ["b", "c", "d"], [])).toEqual({
      allow: ["b", "c"],
      deny: ["c"],
    });
    expect(inheritToolSelection(undefined, ["x"], undefined, ["y"])).toEqual({ deny: ["x", "y"] });
    expect(inheritToolSelection(undefined, [], ["a"], [])).toEqual({ allow: ["a"], deny: [] });

    const model = new ScriptedModel(["done"]);
    const harness = harnessWith(["a", "b", "c", "d"], model).use(
      contextualToolSelectionMiddleware.inheriting(["a", "b", "c"], ["c"], ["b", "c", "d"], []),
    );
    await runAgent(harness, "hi");
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["b"]);
  });

  it("rejects a bad selector at construction", () => {
    expect(() => contextualToolSelectionMiddleware({})).toThrow(
      expect.objectContaining({ code: "validation", details: expect.objectContaining({ option: "allow" }) }),
    );
    expect(() => contextualToolSelectionMiddleware(42 as never)).toThrow(/select/);
    expect(() => contextualToolSelectionMiddleware({ allow: [""] })).toThrow(/allow/);
  });
});
