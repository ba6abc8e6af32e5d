import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { dynamicPromptMiddleware } from "./dynamic-prompt-middleware.js";
import { runAgent, setup } from "./harness.fixture.js";

describe("dynamicPromptMiddleware", () => {
  it("appends a per-call system note computed from state as the last message", async () => {
    const { harness } = setup<{ step: number }>({ instructions: "You are helpful." });
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "done"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(
        dynamicPromptMiddleware<{ step: number }, undefined>(
          (ctx) => `Turn ${++ctx.state.step} of the plan.`,
        ),
      );
    const { run, error, events } = await runAgent(harness, "hi", { state: { step: 0 } });
    expect(error).toBeUndefined();
    expect(model.requests.map((r) => [r.messages[0]?.role, text(r.messages[0])])).toEqual([
      ["system", "You are helpful."],
      ["system", "You are helpful."],
    ]);
    expect(model.requests.map((r) => text(r.messages.at(-1)))).toEqual([
      "Turn 1 of the plan.",
      "Turn 2 of the plan.",
    ]);
    // The note is never stored, and the cacheable prefix never changed.
    expect(run.messages.some((m) => text(m).startsWith("Turn"))).toBe(false);
    expect(events.ofType("cache.layout_changed")).toEqual([]);
  });

  it("adds nothing when the function returns nothing", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["done"]);
    harness.registerModel("m", model).use(dynamicPromptMiddleware(() => undefined));
    await runAgent(harness, "hi");
    expect(model.requests[0]?.messages).toHaveLength(1);
  });

  it("declares tail changes and rejects a non-function", () => {
    expect(dynamicPromptMiddleware(() => "x").changes).toBe("tail");
    expect(() => dynamicPromptMiddleware("x" as never)).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "dynamic_prompt", option: "compute" },
      }),
    );
  });
});
