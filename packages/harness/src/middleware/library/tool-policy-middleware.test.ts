import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "../../../test/helpers.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { toolPolicyMiddleware } from "./tool-policy-middleware.js";

function tools() {
  return [
    FakeTool.returning("read_file", "contents", { policy: { sideEffects: "read" } }),
    FakeTool.returning("delete_file", "deleted", { policy: { sideEffects: "destructive" } }),
    FakeTool.returning("wire_money", "sent", { policy: { sideEffects: "external", requiresApproval: true } }),
    FakeTool.returning("run_code", "ran", { policy: { sideEffects: "write", requiresSandbox: true } }),
    FakeTool.returning("unclassified", "?"),
  ];
}

describe("toolPolicyMiddleware", () => {
  it("hides tools the run does not permit (side effects, approval, sandbox)", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["done"]);
    harness
      .registerModel("m", model)
      .use(toolPolicyMiddleware({ allowSideEffects: ["none", "read", "write"] }));
    for (const tool of tools()) harness.registerTool(tool);
    const { error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["read_file", "unclassified"]);
    expect(events.ofType("tools.filtered")).toEqual([
      {
        type: "tools.filtered",
        by: "tool_policy",
        excluded: ["delete_file", "run_code", "wire_money"],
        remaining: ["read_file", "unclassified"],
      },
    ]);
  });

  it("approval 'defer', an available sandbox and requireClassification change what is visible", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["done"]);
    harness
      .registerModel("m", model)
      .use(toolPolicyMiddleware({ approval: "defer", sandboxAvailable: true, requireClassification: true }));
    for (const tool of tools()) harness.registerTool(tool);
    await runAgent(harness, "hi");
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual([
      "delete_file",
      "read_file",
      "run_code",
      "wire_money",
    ]);
  });

  it("rejects a call to a denied tool with validation; the tool never runs", async () => {
    const { harness } = setup();
    const list = tools();
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "delete_file" }] }]))
      .use(toolPolicyMiddleware({ allowSideEffects: ["read"] }));
    for (const tool of list) harness.registerTool(tool);
    const { error } = await runAgent(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain("side effects");
    expect(list[1]?.callCount).toBe(0);
  });

  it("truncates results over the byte cap; a result of exactly the cap is kept whole", async () => {
    const { harness } = setup();
    harness
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ name: "big" }, { name: "exact" }, { name: "own_cap" }] }, "done"]),
      )
      .registerTool(FakeTool.returning("big", "x".repeat(100)))
      .registerTool(FakeTool.returning("exact", "y".repeat(10)))
      .registerTool(FakeTool.returning("own_cap", "z".repeat(8), { policy: { maxResultBytes: 4 } }))
      .use(toolPolicyMiddleware({ maxResultBytes: 10 }));
    const { run, error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    const [big, exact, own] = toolMessages(run.messages).map((m) => text(m));
    expect(big).toBe(`${"x".repeat(10)}\n[truncated: showing 10 of 100 bytes]`);
    expect(exact).toBe("y".repeat(10));
    expect(own).toBe(`zzzz\n[truncated: showing 4 of 8 bytes]`);
  });

  it("overrides tools' own policies by name", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["done"]);
    harness.registerModel("m", model).use(
      toolPolicyMiddleware({
        allowSideEffects: ["read"],
        policies: { unclassified: { sideEffects: "external" } },
      }),
    );
    for (const tool of tools()) harness.registerTool(tool);
    await runAgent(harness, "hi");
    expect(model.requests[0]?.tools?.map((t) => t.name)).toEqual(["read_file"]);
  });

  it("rejects bad options at construction, naming them", () => {
    expect(() => toolPolicyMiddleware({ allowSideEffects: ["teleport" as never] })).toThrow(
      expect.objectContaining({ details: { middleware: "tool_policy", option: "allowSideEffects" } }),
    );
    expect(() => toolPolicyMiddleware({ maxResultBytes: -1 })).toThrow(/maxResultBytes/);
    expect(() => toolPolicyMiddleware({ policies: { t: { maxResultBytes: 1.5 } } })).toThrow(/policies\.t/);
  });
});
