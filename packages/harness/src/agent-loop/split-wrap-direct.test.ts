import { ProviderError, usage } from "@tinyagents/inference";
import { describe, expect, it, vi } from "vitest";
import { budgetMiddleware } from "../middleware/library/budget-middleware.js";
import { runAgent, setup } from "../middleware/library/harness.fixture.js";
import type { Middleware } from "../middleware/middleware.js";
import { MiddlewareStack } from "../middleware/middleware-stack.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";

// A stack whose only `wrapModelCall` is in split form (budget's) runs it inside the loop's direct
// model call instead of the onion. The run must look exactly as through the onion: these runs
// compare budget alone (direct) with budget behind a pass-through wrap (the onion) — same event
// sequence, same errors, the reservation released — on success, a provider failure and a
// pre-flight block.

/** A wrap that only passes the call on: registered after budget, it keeps budget in the onion. */
const passThrough: Middleware = { name: "pass", wrapModelCall: (_ctx, request, next) => next(request) };

const model = (failing = false) =>
  failing
    ? new ScriptedModel([
        new ProviderError({ provider: "p", message: "provider down", kind: "non_retryable", status: 400 }),
      ])
    : new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "done"], {
        usage: usage({ inputTokens: 10, outputTokens: 5 }),
      });

/** The run's event types, without the pass-through wrap's own brackets. */
async function run(direct: boolean, options: { failing?: boolean; maxInputTokens?: number } = {}) {
  const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
  const budget = budgetMiddleware({ limits: { maxInputTokens: options.maxInputTokens ?? 10_000 } });
  harness.registerModel("m", model(options.failing)).registerTool(FakeTool.returning("t", "ok")).use(budget);
  if (!direct) harness.use(passThrough);
  const ran = await runAgent(harness, "hi");
  const types = ran.events.records
    .filter((r) => !("name" in r.event && r.event.name === "pass"))
    .map((r) => ("hook" in r.event ? `${r.event.type} ${r.event.hook}` : r.event.type));
  return { ran, types, budget };
}

describe("a sole split-form wrap (budget) inside the direct model call", () => {
  it("is what the stack offers to the loop: budget alone yes, behind another wrap no", () => {
    const budget = budgetMiddleware({ limits: { maxTotalTokens: 10 } });
    expect(new MiddlewareStack([budget]).soleModelCallAround?.name).toBe("budget");
    expect(new MiddlewareStack([budget, passThrough]).soleModelCallAround).toBeUndefined();
    expect(new MiddlewareStack([passThrough]).soleModelCallAround).toBeUndefined();
    expect(new MiddlewareStack([]).soleModelCallAround).toBeUndefined();
  });

  it("a run: the same events in the same order as through the onion, the reservation released", async () => {
    const onionComposed = vi.spyOn(MiddlewareStack.prototype, "wrapModel");
    const direct = await run(true);
    // Budget alone: no onion is composed for its calls.
    expect(onionComposed).not.toHaveBeenCalled();
    const onion = await run(false);
    expect(onionComposed).toHaveBeenCalledTimes(2);
    onionComposed.mockRestore();
    expect(direct.ran.error).toBeUndefined();
    expect(direct.types).toEqual(onion.types);
    // Reserved before the call goes out, reconciled before the bracket closes, per model call.
    const call = direct.types.slice(
      direct.types.indexOf("middleware.started wrapModelCall"),
      direct.types.indexOf("middleware.completed wrapModelCall") + 1,
    );
    expect(call[1]).toBe("budget.reserved");
    expect(call.indexOf("model.started")).toBeGreaterThan(1);
    expect(call.at(-2)).toBe("budget.reconciled");
    expect(direct.budget.tracker.snapshot()).toMatchObject({
      reservedInputTokens: 0,
      usage: { inputTokens: 20 },
    });
    expect(direct.ran.status.modelCalls).toBe(onion.ran.status.modelCalls);
  });

  it("a provider failure: budget's bracket fails, the run fails with the provider's error, nothing stays reserved", async () => {
    const direct = await run(true, { failing: true });
    const onion = await run(false, { failing: true });
    expect(direct.ran.error?.code).toBe(onion.ran.error?.code);
    expect(direct.ran.error?.message).toBe(onion.ran.error?.message);
    expect(direct.types).toEqual(onion.types);
    expect(direct.types).toContain("middleware.failed wrapModelCall");
    expect(direct.types).not.toContain("budget.reconciled");
    expect(direct.budget.tracker.reservedInputTokens).toBe(0);
  });

  it("a pre-flight block in dispatch: limit_exceeded before the call goes out, as through the onion", async () => {
    const direct = await run(true, { maxInputTokens: 1 });
    const onion = await run(false, { maxInputTokens: 1 });
    expect(direct.ran.error?.code).toBe("limit_exceeded");
    expect(direct.ran.error?.details).toEqual(onion.ran.error?.details);
    expect(direct.types).toEqual(onion.types);
    expect(direct.types).not.toContain("model.started");
    expect(direct.ran.events.ofType("budget.exceeded").map((e) => e.blocked)).toEqual([true]);
    expect(direct.budget.tracker.reservedInputTokens).toBe(0);
    expect(direct.ran.status.modelCalls).toBe(onion.ran.status.modelCalls);
  });
});
