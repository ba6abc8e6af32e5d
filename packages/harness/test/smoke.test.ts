import { describe, expect, it } from "vitest";
import { AgentHarness, runText } from "@tinyagents/harness";
import { DeterministicClock, DeterministicIds, EventRecorder, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";

describe("smoke", () => {
  it("runs a tool loop", async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: "lookup", arguments: { q: "x" } }] }, "done"]);
    const h = new AgentHarness({ clock: new DeterministicClock(), ids: new DeterministicIds() });
    h.registerModel("m", model).registerTool(FakeTool.returning("lookup", "42"));
    const ctx = h.createContext({ runId: "r1" }, undefined);
    const rec = new EventRecorder();
    rec.attach(ctx.events);
    const run = await h.invokeInContext(undefined, ctx, "hi");
    expect(runText(run)).toBe("done");
    console.log(rec.types());
    const items = [];
    for await (const item of h.invokeStreamingDefault(undefined, "hi")) items.push(item.type === "event" ? item.record.event.type : item.type);
    console.log(items);
  });
});
