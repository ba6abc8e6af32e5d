import { type AgentStreamItem, EventSink } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import {
  DeterministicClock,
  EventRecorder,
  FakeTool,
  runScript,
  ScriptedModel,
  SlowModel,
  StreamingMock,
} from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting } from "./helpers.js";
import { waitUntil } from "./support/wait-until.js";

/** Abort `controller` on a later macrotask (the run is then really waiting on something). */
/** Abort right after the current task (a tool call that just started) returns its pending promise. */
const abortSoon = (controller: AbortController) => queueMicrotask(() => controller.abort());

describe("cancellation through options.signal", () => {
  it("during a model call: cancelled, run.failed last, partial transcript, status cancelled", async () => {
    const { harness } = makeHarness();
    // A virtual sleep of Infinity never wakes: only the abort can end this call.
    const slow = new SlowModel({ delayMs: Number.POSITIVE_INFINITY });
    harness.registerModel("slow", slow);
    const controller = new AbortController();
    const pending = runCollecting(harness, "please wait", {}, { signal: controller.signal });
    await waitUntil(() => slow.callCount === 1, "the model was called");
    controller.abort();
    const { run, status, error, events } = await pending;

    expect(error?.code).toBe("cancelled");
    expect(slow.completed).toBe(0);
    expect(events.types().at(-1)).toBe("run.failed");
    expect(events.ofType("run.failed")[0]?.error.code).toBe("cancelled");
    expect(events.ofType("model.failed")).toHaveLength(1);
    expect(events.ofType("retry.scheduled")).toEqual([]);
    expect(run.messages.map((m) => text(m))).toEqual(["please wait"]);
    expect(status.status).toBe("cancelled");
    expect(status.error?.code).toBe("cancelled");
    expect(status.activeModelCall).toBeUndefined();
  });

  it("during a model call that ignores its signal: the loop stops waiting anyway", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([() => new Promise<string>(() => {})]);
    harness.registerModel("stuck", {
      provider: "stuck",
      modelId: "stuck",
      cacheIdentity: "stuck",
      // Drops the signal on the floor.
      invoke: (request) => model.invoke(request),
    });
    const controller = new AbortController();
    const pending = runCollecting(harness, "hi", {}, { signal: controller.signal });
    await waitUntil(() => model.callCount === 1, "the model was called");
    controller.abort();
    const { error, status } = await pending;
    expect(error?.code).toBe("cancelled");
    expect(status.status).toBe("cancelled");
  });

  it("during a stream: no delta after the abort, run.failed then the failed item last", async () => {
    const { harness } = makeHarness();
    const chunks = ["one ", "two ", "three ", "four ", "five"];
    const mock = StreamingMock.fromTextChunks(chunks, { itemDelayMs: 10 });
    harness.registerModel("stream", mock);
    const controller = new AbortController();
    // Abort synchronously when the second delta is emitted: deterministic.
    const sink = new EventSink("run-stream");
    let deltas = 0;
    sink.subscribe((record) => {
      if (record.event.type === "model.text_delta" && ++deltas === 2) controller.abort();
    });

    const items: AgentStreamItem[] = [];
    for await (const item of lowerLayer(harness).invokeStreaming(
      undefined,
      undefined,
      { runId: "run-stream" },
      "go",
      {
        signal: controller.signal,
        events: sink,
      },
    )) {
      items.push(item);
    }

    const last = items.at(-1);
    expect(last?.type).toBe("failed");
    if (last?.type !== "failed") return;
    expect(last.error.code).toBe("cancelled");
    expect(last.status.status).toBe("cancelled");
    const events = items.flatMap((i) => (i.type === "event" ? [i.record.event] : []));
    const deltaTexts = events.flatMap((e) => (e.type === "model.text_delta" ? [e.text] : []));
    expect(deltaTexts).toEqual(["one ", "two "]);
    expect(events.at(-1)?.type).toBe("run.failed");
    expect(last.run.messages.map((m) => text(m))).toEqual(["go"]);
  });

  it("during a tool: cancelled, the tool's signal aborted, partial transcript kept", async () => {
    const hanging = FakeTool.hanging("wait_forever");
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const spy = FakeTool.of("spy", (_args, ctx) => {
      toolSignal = ctx.signal;
      abortSoon(controller);
      return new Promise<string>(() => {});
    });
    const { run, status, error, events, model } = await runScript({
      script: [{ toolCalls: [{ name: "wait_forever" }, { name: "spy" }] }, "never"],
      tools: [hanging, spy],
      signal: controller.signal,
    });

    expect(error?.code).toBe("cancelled");
    expect(model.callCount).toBe(1);
    expect(toolSignal?.aborted).toBe(true);
    expect(hanging.callCount).toBe(1);
    expect(events.types().at(-1)).toBe("run.failed");
    expect(events.ofType("tool.completed")).toEqual([]);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(status.status).toBe("cancelled");
    expect(status.activeToolCalls).toEqual([]);
  });

  it("during a tool that ignores its signal: the run is still cancelled", async () => {
    const controller = new AbortController();
    // The user stops the run while the tool runs; the tool sleeps forever, deaf to its signal.
    // The abort comes from inside the call, not from a real-time poll: with a virtual clock a
    // pending infinite sleep lets the tool's own timeout fire at virtual speed, which would race
    // a real-time abort.
    const stubborn = FakeTool.of("stubborn", async (_args, ctx) => {
      controller.abort(new Error("user pressed stop"));
      await ctx.run.clock.sleep(Number.POSITIVE_INFINITY);
      return "never";
    });
    const result = runScript({
      script: [{ toolCalls: [{ name: "stubborn" }] }],
      tools: [stubborn],
      signal: controller.signal,
    });
    const { error, status, events } = await result;
    expect(stubborn.callCount).toBe(1);
    expect(error?.code).toBe("cancelled");
    expect(error?.message).toContain("user pressed stop");
    expect(status.status).toBe("cancelled");
    expect(events.types().at(-1)).toBe("run.failed");
    expect(events.ofType("tool.started")).toHaveLength(1);
    expect(events.ofType("tool.completed")).toEqual([]);
  });

  it("an already-aborted signal stops the run before any model call", async () => {
    const controller = new AbortController();
    controller.abort();
    const { error, model, status, events } = await runScript({
      script: ["unused"],
      signal: controller.signal,
    });
    expect(error?.code).toBe("cancelled");
    expect(model.callCount).toBe(0);
    expect(status.status).toBe("cancelled");
    expect(status.modelCalls).toBe(0);
    expect(events.types()).toEqual(["run.started", "run.failed"]);
  });

  it("a stream consumer that stops reading cancels the run", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock });
    const slow = new SlowModel({ delayMs: Number.POSITIVE_INFINITY });
    harness.registerModel("slow", slow);
    const sink = new EventSink("run-break");
    const recorder = new EventRecorder();
    recorder.attach(sink);

    for await (const item of lowerLayer(harness).invokeStreaming(
      undefined,
      undefined,
      { runId: "run-break" },
      "hi",
      {
        events: sink,
      },
    )) {
      if (item.type === "event" && item.record.event.type === "model.started") break;
    }

    expect(slow.completed).toBe(0);
    expect(recorder.types().at(-1)).toBe("run.failed");
    expect(recorder.ofType("run.failed")[0]?.error.code).toBe("cancelled");
    expect(clock.pendingSleeps).toBe(0);
  });
});
