import { usage } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { type UsageEntry, UsageLedger, usageAccountingMiddleware } from "./usage-accounting-middleware.js";

describe("usageAccountingMiddleware", () => {
  it("folds every call's usage into the ledger, in total and by model, across runs", async () => {
    const { harness } = setup();
    const entries: UsageEntry[] = [];
    const accounting = usageAccountingMiddleware({ onUsage: (entry) => entries.push(entry) });
    harness
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "one", "two"], {
          usage: usage({ inputTokens: 100, outputTokens: 10, cacheReadTokens: 40 }),
        }),
      )
      .registerTool(FakeTool.returning("t", "ok"))
      .use(accounting);
    await runAgent(harness, "first");
    await runAgent(harness, "second");
    const report = accounting.ledger.report();
    expect(report.total.calls).toBe(3);
    expect(report.total).toMatchObject({ inputTokens: 300, outputTokens: 30, cacheReadTokens: 120 });
    expect(Object.keys(report.byModel)).toEqual(["m"]);
    expect(entries.map((e) => [e.model, e.usage.inputTokens])).toEqual([
      ["m", 100],
      ["m", 100],
      ["m", 100],
    ]);
    expect(entries[0]?.callId).toMatch(/-model-1$/);
  });

  it("skips calls without usage (edge: nothing reported)", async () => {
    const { harness } = setup();
    const ledger = new UsageLedger();
    harness.registerModel("m", new ScriptedModel(["no usage"])).use(usageAccountingMiddleware({ ledger }));
    await runAgent(harness, "hi");
    expect(ledger.report().total.calls).toBe(0);
  });

  it("rejects a bad ledger or callback", () => {
    expect(() => usageAccountingMiddleware({ ledger: {} as never })).toThrow(
      expect.objectContaining({ details: { middleware: "usage_accounting", option: "ledger" } }),
    );
    expect(() => usageAccountingMiddleware({ onUsage: "x" as never })).toThrow(/onUsage/);
  });
});
