import { getEventListeners } from "node:events";
import {
  type ChatModel,
  type Clock,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { SlowModel } from "../testkit/slow-model.js";
import { ToolTimeoutSettings } from "../tool/timeout-settings.js";
import { runText } from "./agent-run.js";

function setup(clock: Clock = new DeterministicClock()) {
  const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() });
  const events = new EventRecorder();
  const sink = new EventSink("run-1", { now: () => clock.now() });
  events.attach(sink);
  return { harness, events, sink, clock };
}

/** A wrapped (instrumented) clock: no `setTimer`, only `now` and `sleep`. */
function wrapped(inner: DeterministicClock): Clock {
  return { now: () => inner.now(), sleep: (ms, signal) => inner.sleep(ms, signal) };
}

describe("the run deadline cuts in-flight work on the run's clock", () => {
  it("a 20 ms deadline fails a 50 ms model call with `timeout` at 20 ms virtual", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    const model = new SlowModel({ delayMs: 50 });
    harness.registerModel("slow", model);
    const start = clock.now();
    const wall = performance.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1", timeoutMs: 20 },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error?.code).toBe("timeout");
    expect(clock.now() - start).toBe(20);
    expect(model.completed).toBe(0);
    expect(outcome.run.stopReason).toBe("timeout");
    expect(events.types()).toEqual([
      "run.started",
      "route.selected",
      "model.started",
      "limit.reached",
      "model.failed",
      "run.failed",
    ]);
    expect(events.ofType("model.failed")[0]).toMatchObject({ durationMs: 20, error: { code: "timeout" } });
    expect(events.ofType("limit.reached")[0]).toMatchObject({ limit: "wall_clock", value: 20, count: 20 });
    // Virtual time: nothing waited on a real 20 ms timer.
    expect(performance.now() - wall).toBeLessThan(1_000);
  });

  it("a 20 ms deadline aborts a 500 ms tool's ctx.signal at 20 ms virtual and balances its events", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    let abortedAt: number | undefined;
    const tool = FakeTool.of("slow_tool", async (_args, ctx) => {
      ctx.signal.addEventListener("abort", () => {
        abortedAt = clock.now();
      });
      await ctx.run.clock.sleep(500, ctx.signal);
      return "late";
    });
    harness.registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "slow_tool", id: "t1" }] }, "done"]));
    harness.registerTool(tool);
    const start = clock.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1", timeoutMs: 20 },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error?.code).toBe("timeout");
    expect(abortedAt).toBe(start + 20);
    expect(clock.now() - start).toBe(20);
    const types = events.types();
    expect(types.slice(-3)).toEqual(["limit.reached", "tool.failed", "run.failed"]);
    expect(events.ofType("tool.failed")[0]).toMatchObject({
      callId: "t1",
      durationMs: 20,
      error: { code: "timeout" },
    });
    expect(outcome.status.activeToolCalls).toEqual([]);
    expect(outcome.status.status).toBe("failed");
  });

  it("a wrapped clock without setTimer still cuts the call (the deadline sleeps on it)", async () => {
    const inner = new DeterministicClock();
    const { harness, sink } = setup(wrapped(inner));
    harness.registerModel("slow", new SlowModel({ delayMs: 50 }));
    const start = inner.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1", timeoutMs: 20 },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error?.code).toBe("timeout");
    expect(inner.now() - start).toBe(20);
  });

  it("a tool that ignores its signal is abandoned at the deadline: the run ends at 20 ms, not when the tool does", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    harness.registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "deaf", id: "t1" }] }, "done"]));
    harness.registerTool(FakeTool.ignoringAbort("deaf", 500));
    const start = clock.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1", timeoutMs: 20 },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error?.code).toBe("timeout");
    expect(clock.now() - start).toBe(20);
    expect(events.ofType("tool.failed")).toHaveLength(1);
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it("the direct model call is cut at its deadline too", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    harness.registerModel("slow", new SlowModel({ delayMs: 50 }));
    const start = clock.now();
    const error = await lowerLayer(harness)
      .callModel(
        undefined,
        { messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] },
        { timeoutMs: 20 },
        { events: sink },
      )
      .catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "timeout")).toBe(true);
    expect(clock.now() - start).toBe(20);
    expect(events.types().slice(-2)).toEqual(["model.failed", "run.failed"]);
  });
});

describe("tool timeouts on the run's clock", () => {
  it("fires at the configured virtual time, and the message names the timeout and the grace", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    harness.withToolTimeoutSettings(new ToolTimeoutSettings(0, 1, 10_000, 5_000));
    harness.registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "slow_api", id: "t1" }] }, "ok"]));
    harness.registerTool(FakeTool.hanging("slow_api", { timeout: { ms: 1_500 } }));
    const start = clock.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1" },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error).toBeUndefined();
    // The hanging tool honours its signal: it ends at the timeout, no grace is spent.
    expect(clock.now() - start).toBe(1_500);
    const failed = events.ofType("tool.failed")[0];
    expect(failed).toMatchObject({ durationMs: 1_500, error: { code: "timeout" } });
    expect(failed?.error.message).toBe(
      'tool "slow_api" timed out after 1500 ms (its signal was aborted; a tool that ignores it is abandoned after a further 5000 ms grace)',
    );
  });

  it("waits at most the grace for a tool that ignores its signal, then abandons it", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    harness.withToolTimeoutSettings(new ToolTimeoutSettings(0, 1, 10_000, 200));
    harness.registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "deaf", id: "t1" }] }, "ok"]));
    harness.registerTool(FakeTool.ignoringAbort("deaf", undefined, { timeout: { ms: 1_500 } }));
    const start = clock.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1" },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error).toBeUndefined();
    expect(clock.now() - start).toBe(1_700);
    const failed = events.ofType("tool.failed")[0];
    expect(failed?.error.message).toBe(
      'tool "deaf" timed out after 1500 ms (it ignored its aborted signal and was abandoned after a further 200 ms grace)',
    );
    expect(failed?.error.details).toMatchObject({ value: 1_500, graceMs: 200, abandoned: true });
  });

  it("an abandoned tool that answers later does not answer the next model call", async () => {
    const clock = new DeterministicClock();
    const { harness, events, sink } = setup(clock);
    harness.withToolTimeoutSettings(new ToolTimeoutSettings(0, 1, 10_000, 200));
    // First a tool call at once; then, after the tool's result, a final answer that takes 5 s.
    const model: ChatModel = {
      provider: "test",
      modelId: "two-step",
      async invoke(request: ModelRequest, options?: ModelCallOptions): Promise<ModelResponse> {
        const last = request.messages[request.messages.length - 1];
        if (last?.role !== "tool")
          return {
            message: {
              role: "assistant",
              content: [],
              toolCalls: [{ id: "t1", name: "deaf", arguments: {} }],
            },
          };
        await options?.clock?.sleep(5_000);
        return { message: { role: "assistant", content: [{ type: "text", text: "ok" }], toolCalls: [] } };
      },
    };
    harness.registerModel("m", model);
    // Times out at 1,000 ms, abandoned at 1,200 ms, answers at 3,000 ms: during the next model call.
    harness.registerTool(FakeTool.ignoringAbort("deaf", 3_000, { timeout: { ms: 1_000 } }));
    const start = clock.now();
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1" },
      "hi",
      { events: sink },
    );
    expect(outcome.error).toBeUndefined();
    expect(runText(outcome.run)).toBe("ok");
    expect(clock.now() - start).toBe(6_200);
    expect(events.ofType("tool.failed")[0]?.error.details).toMatchObject({ abandoned: true });
    expect(events.ofType("model.completed").map((e) => e.durationMs)).toEqual([0, 5_000]);
  });

  it("rejects a timeout below the minimum instead of raising it silently", async () => {
    const { harness, sink } = setup();
    harness.registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "quick" }] }, "ok"]));
    harness.registerTool(FakeTool.returning("quick", "x", { timeout: { ms: 20 } }));
    const outcome = await lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-1" },
      "hi",
      {
        events: sink,
      },
    );
    expect(outcome.error?.code).toBe("validation");
    expect(outcome.error?.message).toContain("tool timeout { ms: 20 } is below the minimum 1000 ms");
  });
});

describe("stopReason names how a run ended", () => {
  it("cancelled, timed-out, failed and limit-stopped runs", async () => {
    const run = async (
      configure: (h: AgentHarness<undefined, undefined>) => void,
      config = {},
      signal?: AbortSignal,
    ) => {
      const { harness, sink } = setup();
      configure(harness);
      const outcome = await lowerLayer(harness).invokeCollectingPartial(
        undefined,
        undefined,
        { runId: "run-1", ...config },
        "hi",
        {
          events: sink,
          ...(signal === undefined ? {} : { signal }),
        },
      );
      return outcome.run.stopReason;
    };
    const aborted = new AbortController();
    aborted.abort("stop");
    expect(await run((h) => h.registerModel("m", new ScriptedModel(["x"])), {}, aborted.signal)).toBe(
      "cancelled",
    );
    expect(await run((h) => h.registerModel("m", new SlowModel({ delayMs: 50 })), { timeoutMs: 10 })).toBe(
      "timeout",
    );
    expect(
      await run((h) =>
        h
          .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "boom" }] }, "x"]))
          .registerTool(FakeTool.failing("boom", "exploded", { errorPolicy: "fail" })),
      ),
    ).toBe("failed");
    expect(
      await run(
        (h) =>
          h
            .registerModel(
              "m",
              new ScriptedModel([{ toolCalls: [{ name: "t" }] }, { toolCalls: [{ name: "t" }] }, "x"]),
            )
            .registerTool(FakeTool.returning("t", "ok")),
        { maxModelCalls: 1 },
      ),
    ).toBe("limit:model_calls");
  });
});

describe("listener hygiene on the caller's signal", () => {
  it("no abort listener is left after a run ends (invoke, createContext + invokeInContext, streaming, failure)", async () => {
    const controller = new AbortController();
    const { signal } = controller;
    const { harness } = setup();
    harness.registerModel("m", new ScriptedModel(["a", "b", "c", "d"]));
    await lowerLayer(harness).invoke(undefined, undefined, {}, "hi", { signal });
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    const ctx = lowerLayer(harness).createContext({}, undefined, { signal });
    await lowerLayer(harness).invokeInContext(undefined, ctx, "hi");
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    for await (const _item of lowerLayer(harness).invokeStreaming(undefined, undefined, {}, "hi", {
      signal,
    })) {
      // drain
    }
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
    const failing = setup().harness;
    failing.registerModel("m", new ScriptedModel([]));
    await lowerLayer(failing)
      .invoke(undefined, undefined, {}, "hi", { signal })
      .catch(() => {});
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("a context built with createContext still follows the caller's signal while a run executes in it", async () => {
    const controller = new AbortController();
    const clock = new DeterministicClock();
    const { harness } = setup(clock);
    harness.registerModel("slow", new SlowModel({ delayMs: 1_000 }));
    const ctx = lowerLayer(harness).createContext({}, undefined, { signal: controller.signal });
    const pending = lowerLayer(harness)
      .invokeInContext(undefined, ctx, "hi")
      .catch((e: unknown) => e);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort("user pressed stop");
    const error = await pending;
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
