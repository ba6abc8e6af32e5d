/**
 * Cancellation at every checkpoint, unary and streaming: before the run starts, before the model
 * call, in the middle of a provider call / stream (the REAL adapter against a stalled replay
 * response), in the middle of a tool (one that honours its signal and one that ignores it),
 * during retry backoff and during a rate-limit wait.
 *
 * Documented outcome: the run fails with code `cancelled` and status `cancelled`, `run.failed`
 * last, balanced middleware events, the journal complete, the transcript up to the abort, the
 * abort reached the provider / tool (the HTTP stream was closed, the tool saw its signal), and
 * nothing is left behind — no abort listener on the caller's signal, no timer, no socket.
 */
import { type Middleware, rateLimitMiddleware } from "@tinyagents/harness";
import { DeterministicClock, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { OpenAiChatModel, ProviderError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FAULT_MODEL, sse, sseResponse, textChunks, toolTurn } from "../../../inference/test/faults/wire.js";
import { useReplayServer } from "../../../inference/test/support/replay.js";
import { waitUntil } from "../support/wait-until.js";
import { BOTH_PATHS, eventsOf, expectFailedRun, runFault } from "./fault-kit.js";

const server = useReplayServer({ resetBeforeEach: false });

const adapter = () =>
  new OpenAiChatModel({ model: FAULT_MODEL, baseUrl: `${server.url}/v1`, apiKey: "test-key-0123456789" });

describe.each(BOTH_PATHS)("abort (%s)", (_path, streaming) => {
  it("before the run starts: no model call at all", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = new ScriptedModel(["never"]);
    const result = await runFault({ models: { scripted: model }, streaming, signal: controller.signal });
    expectFailedRun(result, { code: "cancelled", transcript: ["user"] });
    expect(model.callCount).toBe(0);
    expect(eventsOf(result, "model.started")).toHaveLength(0);
  });

  it("before the model call (aborted by a beforeModel hook)", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(["never"]);
    const abortInHook: Middleware = { name: "stopper", beforeModel: () => controller.abort() };
    const result = await runFault({
      models: { scripted: model },
      streaming,
      middleware: [abortInHook],
      signal: controller.signal,
    });
    expectFailedRun(result, { code: "cancelled", transcript: ["user"] });
    expect(model.callCount).toBe(0);
    expect(result.error?.message).toContain("before a model call");
  });

  it("in the middle of a provider call: the HTTP stream is closed and no retry follows", async () => {
    server.reset();
    const controller = new AbortController();
    const body = sse(textChunks(["Hel", "lo ", "world"]));
    let calls = 0;
    server.setHandler(() => {
      calls++;
      // Unary: abort once the request is in flight (the answer stalls forever after "Hel").
      if (!streaming) setTimeout(() => controller.abort(), 50);
      return sseResponse(body, { stallAfterBytes: body.indexOf("lo ") - 8, chunking: "frames" });
    });
    // Streaming: abort as the first delta arrives (whatever the machine's load).
    const abortOnDelta: Middleware = { name: "abort_on_delta", onModelDelta: () => controller.abort() };
    const result = await runFault({
      models: { primary: adapter() },
      streaming,
      middleware: streaming ? [abortOnDelta] : [],
      signal: controller.signal,
      policy: { retry: { maxRetries: 3 } },
      afterRun: () => server.closeConnections(),
    });
    expectFailedRun(result, { code: "cancelled", transcript: ["user"] });
    expect(calls).toBe(1);
    expect(eventsOf(result, "retry.scheduled")).toHaveLength(0);
    const shown = eventsOf(result, "model.text_delta").map((e) => e.text);
    expect(shown.join("")).toBe(streaming ? "Hel" : "");
    expect(ProviderError.isProviderError(result.error)).toBe(false);
  });

  it("in the middle of a tool that honours its signal: the tool sees the abort", async () => {
    const controller = new AbortController();
    let toolSignal: AbortSignal | undefined;
    const tool = FakeTool.of("slow", (_args, ctx) => {
      toolSignal = ctx.signal;
      controller.abort();
      return new Promise((_resolve, reject) =>
        ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)),
      );
    });
    const result = await runFault({
      models: { scripted: new ScriptedModel([{ toolCalls: [{ name: "slow" }] }, "never"]) },
      streaming,
      tools: [tool],
      signal: controller.signal,
    });
    expectFailedRun(result, { code: "cancelled", transcript: ["user", "assistant"] });
    expect(toolSignal?.aborted).toBe(true);
    expect(result.error?.message).toContain("during a tool call");
  });

  it("in the middle of a tool that ignores its signal: the run still ends at once", async () => {
    const controller = new AbortController();
    const tool = FakeTool.of("stubborn", () => {
      controller.abort();
      return new Promise(() => {}); // never settles, never listens
    });
    const result = await runFault({
      models: { scripted: new ScriptedModel([{ toolCalls: [{ name: "stubborn" }] }, "never"]) },
      streaming,
      tools: [tool],
      signal: controller.signal,
    });
    expectFailedRun(result, { code: "cancelled", transcript: ["user", "assistant"] });
  });

  it("during retry backoff: the wait ends and no further attempt is made", async () => {
    const controller = new AbortController();
    const clock = new DeterministicClock({ autoAdvance: false });
    const overloaded = () =>
      new ProviderError({
        provider: "scripted",
        kind: "upstream_unhealthy",
        status: 529,
        message: "overloaded",
      });
    const model = new ScriptedModel([overloaded(), overloaded(), "never"]);
    const running = runFault({
      models: { scripted: model },
      streaming,
      clock,
      signal: controller.signal,
      policy: { retry: { maxRetries: 3, initialBackoffMs: 60_000 } },
    });
    await waitUntil(() => clock.pendingSleeps === 1);
    controller.abort();
    const result = await running;
    expectFailedRun(result, { code: "cancelled", transcript: ["user"] });
    expect(result.error?.message).toContain("during retry backoff");
    expect(model.callCount).toBe(1);
    expect(eventsOf(result, "retry.scheduled")).toHaveLength(1);
    expect(clock.pendingSleeps).toBe(0);
  });

  it("during a rate-limit wait: the wait ends and the model is not called again", async () => {
    const controller = new AbortController();
    const clock = new DeterministicClock({ autoAdvance: false });
    const model = new ScriptedModel([{ toolCalls: [{ name: "lookup" }] }, "never"]);
    const running = runFault({
      models: { scripted: model },
      streaming,
      clock,
      tools: [FakeTool.returning("lookup", "ok")],
      middleware: [rateLimitMiddleware({ requests: { capacity: 1, refillPerSecond: 0.001 } })],
      signal: controller.signal,
    });
    await waitUntil(() => clock.pendingSleeps === 1);
    controller.abort();
    const result = await running;
    expectFailedRun(result, { code: "cancelled", transcript: ["user", "assistant", "tool"] });
    expect(result.error?.message).toContain("rate limit");
    expect(model.callCount).toBe(1);
    expect(clock.pendingSleeps).toBe(0);
  });
});

describe("abort after the first turn of a real provider run", () => {
  it.each(BOTH_PATHS)("(%s) keeps the finished turn in the transcript", async (_path, streaming) => {
    server.reset();
    const controller = new AbortController();
    let calls = 0;
    server.setHandler(() => {
      if (++calls === 1) return toolTurn("call_1", "lookup", { q: "x" });
      setTimeout(() => controller.abort(), 30);
      return { ...sseResponse(sse(textChunks(["late"]))), headerDelayMs: 60_000 };
    });
    const result = await runFault({
      models: { primary: adapter() },
      streaming,
      tools: [FakeTool.returning("lookup", { answer: 42 })],
      signal: controller.signal,
      afterRun: () => server.closeConnections(),
    });
    expectFailedRun(result, { code: "cancelled", transcript: ["user", "assistant", "tool"] });
    expect(calls).toBe(2);
  });
});
