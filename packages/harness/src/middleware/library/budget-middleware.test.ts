import { assistant, ProviderError, usage, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { lowerLayer } from "../../runtime/lower-layer.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import type { Middleware } from "../middleware.js";
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

  it("a custom estimate that is not a token count blocks the call with a validation error (never switches the limit off)", async () => {
    for (const bad of [Number.NaN, undefined, -1, Number.POSITIVE_INFINITY]) {
      const { harness } = setup();
      const model = loop(1);
      const budget = budgetMiddleware({
        limits: { maxInputTokens: 100 },
        estimate: () => bad as unknown as number,
      });
      harness.registerModel("m", model).use(budget);
      const { error } = await runAgent(harness, "hi");
      expect(model.callCount).toBe(0);
      expect(error?.code).toBe("validation");
      expect(error?.message).toContain("estimate");
      expect(budget.tracker.snapshot().reservedInputTokens).toBe(0);
    }
  });

  it("counts cost from the harness's pricing; reports an overrun once, then blocks", async () => {
    const { harness } = setup();
    const model = loop(3);
    // $1 per input token, $2 per output token: each call costs 10 + 10 = $20.
    const budget = budgetMiddleware({ limits: { maxCost: 25 } });
    harness
      .registerModel("m", model, { pricing: { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 } })
      .registerTool(FakeTool.returning("t", "ok"))
      .use(budget);
    const { error, events } = await runAgent(harness, "hi");
    expect(model.callCount).toBe(2);
    expect(error?.code).toBe("limit_exceeded");
    expect(events.ofType("budget.exceeded").map((e) => [e.used, e.blocked])).toEqual([
      [40, false],
      [40, true],
    ]);
    // The ledger's live readings agree with its snapshot.
    expect(budget.tracker.cost).toBe(40);
    expect(budget.tracker.usage).toEqual(budget.tracker.snapshot().usage);
    expect(budget.tracker.reservedInputTokens).toBe(0);
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

  describe("holds a reservation only while a call is dispatched", () => {
    const spent = (calls: number) => ({
      usage: expect.objectContaining({ inputTokens: 10 * calls, outputTokens: 5 * calls }),
      reservedInputTokens: 0,
    });

    it("a later middleware interrupts in beforeModel: nothing stays reserved, before or after resume", async () => {
      const { harness } = setup();
      const model = loop(3);
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      let interrupt = true;
      const gate: Middleware = {
        name: "gate",
        beforeModel(ctx) {
          if (interrupt && ctx.callId?.endsWith("-model-2"))
            ctx.run.requestControl({ kind: "interrupt", reason: "wait" });
        },
      };
      harness.registerModel("m", model).registerTool(FakeTool.returning("t", "ok")).use(budget).use(gate);
      const { run, error, events } = await runAgent(harness, "hi");
      expect(error).toBeUndefined();
      expect(run.stopReason).toBe("interrupted");
      expect(model.callCount).toBe(1);
      expect(budget.tracker.snapshot()).toMatchObject(spent(1));
      expect(events.ofType("budget.reserved")).toHaveLength(1);
      interrupt = false;
      const resumed = await lowerLayer(harness).resume(undefined, undefined, run.paused!);
      expect(resumed.stopReason).toBe("completed");
      expect(model.callCount).toBe(3);
      expect(budget.tracker.snapshot()).toMatchObject(spent(3));
    });

    it("a later middleware throws in beforeModel: the undispatched call never holds budget", async () => {
      const { harness } = setup();
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const seen: number[] = [];
      const failing: Middleware = {
        name: "failing",
        beforeModel(ctx) {
          if (!ctx.callId?.endsWith("-model-2")) return;
          seen.push(budget.tracker.snapshot().reservedInputTokens);
          throw new Error("nope");
        },
      };
      harness
        .registerModel("m", loop(3))
        .registerTool(FakeTool.returning("t", "ok"))
        .use(budget)
        .use(failing);
      const { error, events } = await runAgent(harness, "hi");
      expect(error?.message).toContain("nope");
      // Another run sharing the tracker would have seen this much room taken by a call that never went out.
      expect(seen).toEqual([0]);
      expect(budget.tracker.snapshot()).toMatchObject(spent(1));
      expect(events.ofType("budget.reserved")).toHaveLength(1);
    });

    it("callModel: a later middleware answers in beforeModel (stopWithFinal) — nothing reserved or spent", async () => {
      const { harness } = setup();
      const model = loop(1);
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const canned: Middleware = {
        name: "canned",
        beforeModel(ctx) {
          ctx.run.requestControl({ kind: "stopWithFinal", text: "from the gate" });
        },
      };
      harness.registerModel("m", model).use(budget).use(canned);
      const response = await lowerLayer(harness).callModel(undefined, { messages: [user("hi")] });
      expect(response.message.content).toEqual([{ type: "text", text: "from the gate" }]);
      expect(model.callCount).toBe(0);
      expect(budget.tracker.snapshot()).toMatchObject(spent(0));
    });

    it("an outer wrapModelCall answers without calling next: nothing reserved or spent", async () => {
      const { harness } = setup();
      const model = loop(1);
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const shortCircuit: Middleware = {
        name: "short-circuit",
        async wrapModelCall() {
          return {
            message: assistant("stored answer"),
            finishReason: "stop",
            usage: usage({ inputTokens: 10, outputTokens: 5 }),
          };
        },
      };
      harness.registerModel("m", model).use(shortCircuit).use(budget);
      const { error, events } = await runAgent(harness, "hi");
      expect(error).toBeUndefined();
      expect(model.callCount).toBe(0);
      expect(budget.tracker.snapshot()).toMatchObject(spent(0));
      expect(events.ofType("budget.reserved")).toEqual([]);
    });

    it("the run is cancelled in a later beforeModel: released, nothing spent", async () => {
      const { harness } = setup();
      const model = loop(1);
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const cancel: Middleware = {
        name: "cancel",
        beforeModel(ctx) {
          ctx.run.cancel();
        },
      };
      harness.registerModel("m", model).use(budget).use(cancel);
      const { error } = await runAgent(harness, "hi");
      expect(error?.code).toBe("cancelled");
      expect(model.callCount).toBe(0);
      expect(budget.tracker.snapshot()).toMatchObject(spent(0));
    });

    it("a later middleware's afterModel throws: the call that went out is still counted", async () => {
      const { harness } = setup();
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const failing: Middleware = {
        name: "failing",
        afterModel() {
          throw new Error("bad answer");
        },
      };
      harness.registerModel("m", loop(1)).use(budget).use(failing);
      const { error } = await runAgent(harness, "hi");
      expect(error?.message).toContain("bad answer");
      expect(budget.tracker.snapshot()).toMatchObject(spent(1));
    });

    it("a retry middleware calling next twice: each dispatch reserves and settles on its own", async () => {
      const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
      const failing = new ProviderError({ provider: "p", message: "busy", kind: "retryable", status: 503 });
      const model = new ScriptedModel([failing, "done"], {
        usage: usage({ inputTokens: 10, outputTokens: 5 }),
      });
      const budget = budgetMiddleware({ limits: { maxInputTokens: 10_000 } });
      const retryOnce: Middleware = {
        name: "retry-once",
        async wrapModelCall(_ctx, request, next) {
          try {
            return await next(request);
          } catch {
            return next(request);
          }
        },
      };
      harness.registerModel("m", model).use(retryOnce).use(budget);
      const { error, events } = await runAgent(harness, "hi");
      expect(error).toBeUndefined();
      expect(model.callCount).toBe(2);
      expect(events.ofType("budget.reserved")).toHaveLength(2);
      expect(events.ofType("budget.reconciled")).toHaveLength(1);
      expect(budget.tracker.snapshot()).toMatchObject(spent(1));
    });
  });

  it("tracker holds: counted until released once; a reset drops them and a later release changes nothing", () => {
    const tracker = new BudgetTracker();
    const first = tracker.hold(30);
    tracker.reserve({}, 5);
    expect(tracker.reservedInputTokens).toBe(35);
    tracker.releaseHold(first);
    tracker.releaseHold(first);
    expect(tracker.reservedInputTokens).toBe(5);
    const stale = tracker.hold(40);
    tracker.reset();
    tracker.releaseHold(stale);
    expect(tracker.snapshot().reservedInputTokens).toBe(0);
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
