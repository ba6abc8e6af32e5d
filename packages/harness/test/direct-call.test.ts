import { EventSink } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DEFAULT_CLOCK_START,
  DeterministicClock,
  EventRecorder,
  ScriptedModel,
  SlowModel,
} from "@tinyagents/harness/testkit";
import { ProviderError, text, usage, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness } from "./helpers.js";

const pricing = { inputPerMillion: 2, outputPerMillion: 10, cacheReadPerMillion: 0.5 };
const callUsage = usage({ inputTokens: 1_000, outputTokens: 500, cacheReadTokens: 400 });

function recorder(runId: string) {
  const sink = new EventSink(runId);
  const events = new EventRecorder();
  events.attach(sink);
  return { sink, events };
}

describe("harness.callModel (direct call)", () => {
  it("goes through resolution, middleware, events, usage, cost and its own status record", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel(["direct answer"], { modelId: "priced-id", usage: callUsage });
    const seen: string[] = [];
    harness
      .registerModel("cheap", new ScriptedModel([]))
      .registerModel("priced", model, { pricing })
      .use({
        name: "route",
        beforeModel: (_ctx, request) => {
          seen.push("beforeModel");
          request.model = "priced";
        },
        afterModel: () => {
          seen.push("afterModel");
        },
      });
    const { sink, events } = recorder("direct-1");

    const { response, status } = await lowerLayer(harness).callModelWithStatus(
      undefined,
      { messages: [user("PROMPT-TEXT-123")] },
      { runId: "direct-1" },
      { events: sink },
    );

    expect(text(response.message)).toBe("direct answer");
    expect(seen).toEqual(["beforeModel", "afterModel"]);
    expect(response.resolvedModel).toMatchObject({
      name: "priced",
      source: "request_override",
      providerModelId: "priced-id",
    });
    expect(events.types()).toEqual([
      "run.started",
      "middleware.started",
      "middleware.completed",
      "route.selected",
      "model.started",
      "usage.recorded",
      "cost.recorded",
      "model.completed",
      "middleware.started",
      "middleware.completed",
      "run.completed",
    ]);
    const cost = events.ofType("cost.recorded")[0]?.cost;
    // 600 uncached input at $2/M, 400 cached at $0.5/M, 500 output at $10/M.
    expect(cost?.input).toBeCloseTo(0.0012, 12);
    expect(cost?.cacheRead).toBeCloseTo(0.0002, 12);
    expect(cost?.output).toBeCloseTo(0.005, 12);
    expect(cost?.total).toBeCloseTo(0.0064, 12);
    expect(events.ofType("usage.recorded")[0]).toEqual({
      type: "usage.recorded",
      callId: "direct-1-model-1",
      model: "priced",
      usage: callUsage,
    });
    expect(events.ofType("run.completed")[0]).toMatchObject({
      modelCalls: 1,
      toolCalls: 0,
      cost: { total: cost?.total },
    });
    expect(status).toMatchObject({
      runId: "direct-1",
      component: "model_call",
      status: "completed",
      modelCalls: 1,
      toolCalls: 0,
      usage: { calls: 1, inputTokens: 1_000, outputTokens: 500, cacheReadTokens: 400 },
    });
    expect(status.cost.total).toBeCloseTo(0.0064, 12);
    expect(JSON.stringify(status)).not.toContain("PROMPT-TEXT-123");
    expect(model.requests[0]?.model).toBe("priced");
  });

  it("callModel returns the response and uses the default model", async () => {
    const { harness } = makeHarness();
    harness.registerModel("only", new ScriptedModel(["plain"]));
    const response = await lowerLayer(harness).callModel(undefined, { messages: [user("hi")] });
    expect(text(response.message)).toBe("plain");
    expect(response.resolvedModel?.source).toBe("registry_default");
  });

  it("retries through the clock like the loop does", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock });
    harness.registerModel(
      "m",
      new ScriptedModel([
        new ProviderError({ provider: "p", message: "overloaded", kind: "upstream_unhealthy" }),
        "ok",
      ]),
    );
    const { sink, events } = recorder("direct-retry");
    const response = await lowerLayer(harness).callModel(
      undefined,
      { messages: [user("hi")] },
      { runId: "direct-retry" },
      { events: sink },
    );
    expect(text(response.message)).toBe("ok");
    expect(clock.sleeps).toEqual([200]);
    expect(events.ofType("retry.scheduled").map((e) => e.delayMs)).toEqual([200]);
  });

  it("a failing direct call throws, emits run.failed, runs onError and records a failed status", async () => {
    const { harness } = makeHarness();
    const onError: string[] = [];
    harness
      .registerModel(
        "m",
        new ScriptedModel([new ProviderError({ provider: "p", message: "denied", kind: "non_retryable" })]),
      )
      .use({
        name: "watch",
        onError: (_ctx, error) => {
          onError.push(error.code);
        },
      });
    const { sink, events } = recorder("direct-fail");
    await expect(
      lowerLayer(harness).callModel(
        undefined,
        { messages: [user("hi")] },
        { runId: "direct-fail" },
        { events: sink },
      ),
    ).rejects.toMatchObject({ code: "provider", message: "denied" });
    expect(onError).toEqual(["provider"]);
    expect(events.ofType("run.failed")[0]?.error.code).toBe("provider");
  });

  it("rejects an invalid request before doing anything", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel(["x"]);
    harness.registerModel("m", model);
    await expect(
      lowerLayer(harness).callModel(undefined, { messages: "nope" as never }),
    ).rejects.toMatchObject({
      code: "validation",
    });
    expect(model.callCount).toBe(0);
  });

  it("respects the model-call cap of its config, with a limit.reached event", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel(["x"]);
    harness.registerModel("m", model);
    const { sink, events } = recorder("direct-cap");
    await expect(
      lowerLayer(harness).callModel(
        undefined,
        { messages: [user("hi")] },
        { runId: "direct-cap", maxModelCalls: 0 },
        { events: sink },
      ),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      details: { limit: "model_calls", value: 0, count: 1 },
    });
    expect(model.callCount).toBe(0);
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "model_calls", value: 0, count: 1 },
    ]);
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it("enforces the run deadline with a virtual clock", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock });
    harness.registerModel("slow", new SlowModel({ delayMs: 300 }));
    const { sink, events } = recorder("direct-deadline");
    await expect(
      lowerLayer(harness).callModel(
        undefined,
        { messages: [user("hi")] },
        { runId: "direct-deadline", timeoutMs: 100 },
        { events: sink },
      ),
    ).rejects.toMatchObject({ code: "timeout" });
    // Cut at the deadline on the virtual clock, not when the 300 ms call would have ended.
    expect(events.ofType("limit.reached")[0]).toMatchObject({ limit: "wall_clock", value: 100, count: 100 });
    expect(clock.now() - DEFAULT_CLOCK_START).toBe(100);
  });
});
