import { EventSink, runText } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DEFAULT_CLOCK_START,
  DeterministicClock,
  runScript,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { ProviderError, type ProviderFailureKind } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting } from "./helpers.js";
import { waitUntil } from "./support/wait-until.js";

const failure = (kind: ProviderFailureKind, message = `upstream said ${kind}`, retryAfterMs?: number) =>
  new ProviderError({
    provider: "scripted",
    message,
    kind,
    status: kind === "non_retryable" ? 400 : 503,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe("retry", () => {
  it("retries a retryable ProviderError with exponential backoff through the clock", async () => {
    const clock = new DeterministicClock();
    const { run, error, events, model, trajectory } = await runScript({
      script: [failure("upstream_unhealthy"), failure("upstream_unhealthy"), "third time lucky"],
      harnessOptions: { clock },
    });

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("third time lucky");
    expect(model.callCount).toBe(3);
    expect(events.ofType("retry.scheduled").map((e) => [e.attempt, e.delayMs])).toEqual([
      [2, 200],
      [3, 400],
    ]);
    expect(events.ofType("retry.scheduled")[0]?.error).toMatchObject({
      code: "provider",
      message: "upstream said upstream_unhealthy",
    });
    expect(clock.sleeps).toEqual([200, 400]);
    expect(clock.now() - DEFAULT_CLOCK_START).toBe(600);
    expect(events.ofType("model.started").map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(events.ofType("model.failed").map((e) => e.attempt)).toEqual([1, 2]);
    // One logical model call, three attempts.
    expect(run.modelCalls).toBe(1);
    trajectory.assertModelCalledTimes(1);
    expect(trajectory.modelAttemptCount()).toBe(3);
    trajectory.assertOrder([
      "model.failed",
      "retry.scheduled",
      "model.started",
      "model.failed",
      "retry.scheduled",
      "model.completed",
    ]);
  });

  it("gives up after maxRetries with the last error", async () => {
    const clock = new DeterministicClock();
    const { error, events, model, status } = await runScript({
      script: [failure("rate_limited"), failure("rate_limited"), failure("rate_limited", "still limited")],
      harnessOptions: { clock },
      policy: { retry: { maxRetries: 2 } },
    });
    expect(error?.code).toBe("provider");
    expect(error?.message).toBe("still limited");
    expect(model.callCount).toBe(3);
    expect(clock.sleeps).toEqual([200, 400]);
    expect(events.ofType("retry.scheduled")).toHaveLength(2);
    expect(status.status).toBe("failed");
  });

  it("RunLimits.maxRetriesPerCall caps the retry policy", async () => {
    const { error, model } = await runScript({
      script: [failure("retryable"), failure("retryable"), "unused"],
      policy: { retry: { maxRetries: 5 }, limits: { maxRetriesPerCall: 1 } },
    });
    expect(error?.code).toBe("provider");
    expect(model.callCount).toBe(2);
    expect(model.remaining).toBe(1);
  });

  it("honours the provider's Retry-After", async () => {
    const clock = new DeterministicClock();
    const { error } = await runScript({
      script: [failure("rate_limited", "slow down", 1_500), "ok"],
      harnessOptions: { clock },
    });
    expect(error).toBeUndefined();
    expect(clock.sleeps).toEqual([1_500]);
  });

  it("does not retry a non-retryable error", async () => {
    const clock = new DeterministicClock();
    const { error, events, model } = await runScript({
      script: [failure("non_retryable", "invalid request"), "unused"],
      harnessOptions: { clock },
    });
    expect(error?.code).toBe("provider");
    expect(error?.message).toBe("invalid request");
    expect(model.callCount).toBe(1);
    expect(events.ofType("retry.scheduled")).toEqual([]);
    expect(events.ofType("model.failed")).toHaveLength(1);
    expect(clock.sleeps).toEqual([]);
  });

  it("does not retry plain errors thrown by a model", async () => {
    const { error, model } = await runScript({ script: [new Error("bug in adapter"), "unused"] });
    expect(error?.code).toBe("provider");
    expect(error?.message).toBe("bug in adapter");
    expect(model.callCount).toBe(1);
  });

  it("an abort during the backoff sleep cancels the run", async () => {
    const clock = new DeterministicClock({ autoAdvance: false });
    const controller = new AbortController();
    const pending = runScript({
      script: [failure("upstream_unhealthy"), "unused"],
      harnessOptions: { clock },
      signal: controller.signal,
    });
    await waitUntil(() => clock.pendingSleeps > 0, "the backoff sleep started");
    expect(clock.pendingSleeps).toBe(1);
    controller.abort();
    const { error, model, status } = await pending;
    expect(error?.code).toBe("cancelled");
    expect(model.callCount).toBe(1);
    expect(status.status).toBe("cancelled");
  });
});

describe("fallback", () => {
  it("moves down the fallback chain when the primary keeps failing", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock, policy: { fallback: ["b"], retry: { maxRetries: 1 } } });
    const a = new ScriptedModel([failure("upstream_unhealthy"), failure("upstream_unhealthy", "a is down")], {
      modelId: "a-id",
    });
    const b = new ScriptedModel(["answer from b"], { modelId: "b-id" });
    harness.registerModel("a", a).registerModel("b", b);

    const { run, error, events } = await runCollecting(harness, "hi");

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("answer from b");
    expect(a.callCount).toBe(2);
    expect(b.callCount).toBe(1);
    expect(events.ofType("fallback.selected")).toEqual([
      {
        type: "fallback.selected",
        callId: expect.any(String),
        from: "a",
        to: "b",
        error: expect.objectContaining({ code: "provider", message: "a is down" }),
      },
    ]);
    expect(run.resolvedModel).toEqual({
      name: "b",
      provider: "scripted",
      providerModelId: "b-id",
      source: "fallback",
      requested: "a",
      fallbackHistory: [{ name: "a", error: "a is down", code: "provider" }],
    });
    expect(run.finalResponse?.resolvedModel).toEqual(run.resolvedModel);
    expect(run.steps[0]?.model).toBe("b");
    expect(clock.sleeps).toEqual([200]);
    expect(events.ofType("model.started").map((e) => `${e.model}#${e.attempt}`)).toEqual([
      "a#1",
      "a#2",
      "b#1",
    ]);
  });

  it("walks a longer chain and records every failed model", async () => {
    const { harness } = makeHarness({ policy: { fallback: ["b", "c"], retry: { maxRetries: 0 } } });
    harness
      .registerModel("a", new ScriptedModel([failure("upstream_unhealthy", "a down")]))
      .registerModel("b", new ScriptedModel([failure("quota_exhausted", "b out of quota")]))
      .registerModel("c", new ScriptedModel(["from c"]));
    const { run, events } = await runCollecting(harness, "hi");
    expect(runText(run)).toBe("from c");
    expect(events.ofType("fallback.selected").map((e) => `${e.from}->${e.to}`)).toEqual(["a->b", "b->c"]);
    expect(run.resolvedModel?.fallbackHistory).toEqual([
      { name: "a", error: "a down", code: "provider" },
      { name: "b", error: "b out of quota", code: "provider" },
    ]);
  });

  it("an unregistered fallback name fails the call before the provider is called", async () => {
    const { harness } = makeHarness({ policy: { fallback: ["nope"], retry: { maxRetries: 2 } } });
    const a = new ScriptedModel([failure("upstream_unhealthy"), "ok"]);
    harness.registerModel("a", a);
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("model_not_found");
    expect(error?.message).toContain("nope");
    expect(a.callCount).toBe(0);
    expect(events.ofType("model.started")).toEqual([]);
  });

  it("a listener that throws on model.started rejects the call, so a wrap's .catch sees it", async () => {
    const { harness } = makeHarness();
    harness.registerModel("a", new ScriptedModel(["unused"])).use({
      name: "guard",
      wrapModelCall: (_ctx, request, next) =>
        next(request).catch(() => ({
          message: { role: "assistant", content: [{ type: "text", text: "guarded" }], toolCalls: [] },
        })),
    });
    const ctx = lowerLayer(harness).createContext({}, undefined, {
      events: new EventSink("s", {
        onListenerError: (error) => {
          throw error;
        },
      }),
    });
    ctx.events.subscribe((record) => {
      if (record.event.type === "model.started") throw new Error("listener boom");
    });
    const run = await lowerLayer(harness).invokeInContext(undefined, ctx, "hi");
    expect(runText(run)).toBe("guarded");
  });

  it("a non-retryable error does not fall back", async () => {
    const { harness } = makeHarness({ policy: { fallback: ["b"] } });
    const b = new ScriptedModel(["unused"]);
    harness
      .registerModel("a", new ScriptedModel([failure("non_retryable", "bad request")]))
      .registerModel("b", b);
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.message).toBe("bad request");
    expect(b.callCount).toBe(0);
    expect(events.ofType("fallback.selected")).toEqual([]);
  });

  it("when the whole chain fails the run fails with the last error", async () => {
    const { harness } = makeHarness({ policy: { fallback: ["b"], retry: { maxRetries: 0 } } });
    harness
      .registerModel("a", new ScriptedModel([failure("upstream_unhealthy", "a down")]))
      .registerModel("b", new ScriptedModel([failure("upstream_unhealthy", "b down")]));
    const { error, status } = await runCollecting(harness, "hi");
    expect(error?.message).toBe("b down");
    expect(status.status).toBe("failed");
  });
});
