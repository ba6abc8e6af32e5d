import { ProviderError, usage, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { budgetMiddleware } from "./budget-middleware.js";
import { BudgetTracker } from "./budget-tracker.js";
import { estimateRequestTokens } from "./estimate-request.js";
import { runAgent, setup } from "./harness.fixture.js";

/** A tool loop that would make `calls` model calls, each reporting 10 input + 5 output tokens. */
function loop(calls: number) {
  const steps = [...Array.from({ length: calls - 1 }, () => ({ toolCalls: [{ name: "t" }] })), "done"];
  return new ScriptedModel(steps, { usage: usage({ inputTokens: 10, outputTokens: 5 }) });
}

describe("budgetMiddleware", () => {
  it("blocks the call after a limit is used up exactly, before dispatch; warns once on the way", async () => {
    const { harness } = setup();
    const model = loop(3);
    const budget = budgetMiddleware({ limits: { maxOutputTokens: 10 } });
    harness.registerModel("m", model).registerTool(FakeTool.returning("t", "ok")).use(budget);
    const { error, events } = await runAgent(harness, "hi");
    // 5 + 5 = 10 output tokens: exactly the limit, allowed. The third call has no room and is never dispatched.
    expect(model.callCount).toBe(2);
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toMatchObject({ limit: "budget.maxOutputTokens", value: 10, count: 10 });
    expect(events.ofType("budget.warning")).toEqual([
      {
        type: "budget.warning",
        limit: "maxOutputTokens",
        used: 10,
        max: 10,
        reason: "output tokens: used 10 of 10 (100%)",
      },
    ]);
    const exceeded = events.ofType("budget.exceeded");
    expect(exceeded.map((e) => [e.limit, e.used, e.blocked])).toEqual([["maxOutputTokens", 10, true]]);
    expect(budget.tracker.snapshot()).toMatchObject({ usage: { outputTokens: 10 }, reservedInputTokens: 0 });
  });

  it("reserves the estimated input before each call and reconciles it with reported usage", async () => {
    const { harness } = setup();
    harness.registerModel("m", loop(1)).use(budgetMiddleware({ limits: { maxInputTokens: 1_000 } }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    const estimated = estimateRequestTokens({ messages: [user("hi")] });
    expect(events.ofType("budget.reserved").map((e) => e.estimatedInputTokens)).toEqual([estimated]);
    expect(events.ofType("budget.reconciled")).toEqual([
      {
        type: "budget.reconciled",
        callId: expect.stringMatching(/-model-1$/),
        estimatedInputTokens: estimated,
        actualInputTokens: 10,
      },
    ]);
  });

  it("blocks pre-flight when the estimate alone would pass the input limit", async () => {
    const { harness } = setup();
    const model = loop(1);
    harness.registerModel("m", model).use(budgetMiddleware({ limits: { maxInputTokens: 3 } }));
    const { error, events } = await runAgent(
      harness,
      "a long enough question to need more than three tokens",
    );
    expect(model.callCount).toBe(0);
    expect(error?.code).toBe("limit_exceeded");
    expect(events.ofType("budget.exceeded")[0]).toMatchObject({
      limit: "maxInputTokens",
      used: 0,
      blocked: true,
    });
  });

  it("counts cost from the harness's pricing; reports an overrun once, then blocks", async () => {
    const { harness } = setup();
    const model = loop(3);
    // $1 per input token, $2 per output token: each call costs 10 + 10 = $20.
    harness
      .registerModel("m", model, { pricing: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } })
      .registerTool(FakeTool.returning("t", "ok"))
      .use(budgetMiddleware({ limits: { maxCost: 25 } }));
    const { error, events } = await runAgent(harness, "hi");
    expect(model.callCount).toBe(2);
    expect(error?.code).toBe("limit_exceeded");
    expect(events.ofType("budget.exceeded").map((e) => [e.used, e.blocked])).toEqual([
      [40, false],
      [40, true],
    ]);
  });

  it("a shared tracker enforces one budget across a parent and a sub-agent", async () => {
    const tracker = new BudgetTracker();
    const parent = setup();
    parent.harness
      .registerModel("m", loop(1))
      .use(budgetMiddleware({ limits: { maxOutputTokens: 5 }, tracker }));
    const child = setup();
    const childModel = loop(1);
    child.harness
      .registerModel("m", childModel)
      .use(budgetMiddleware({ limits: { maxOutputTokens: 5 }, tracker }));
    expect((await runAgent(parent.harness, "hi")).error).toBeUndefined();
    const { error } = await runAgent(child.harness, "hi");
    expect(error?.code).toBe("limit_exceeded");
    expect(childModel.callCount).toBe(0);
  });

  it("releases the reservation when the call fails", async () => {
    const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
    const failing = new ProviderError({ provider: "p", message: "boom", kind: "non_retryable", status: 400 });
    const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
    harness.registerModel("m", new ScriptedModel([failing])).use(budget);
    const { error } = await runAgent(harness, "hi");
    expect(error?.message).toBe("boom");
    expect(budget.tracker.snapshot().reservedInputTokens).toBe(0);
  });

  it("rejects bad limits at construction, naming the option", () => {
    expect(() => budgetMiddleware({ limits: { maxTotalTokens: -1 } })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "budget", option: "limits.maxTotalTokens" },
      }),
    );
    expect(() => budgetMiddleware({ limits: {} })).toThrow(/at least one/);
    expect(() => budgetMiddleware({ limits: { maxCost: 1 }, warnAt: 1.5 })).toThrow(/warnAt/);
  });
});
