import { assistant, type UsageTotals } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { InMemoryResponseCache } from "../cache/in-memory-response-cache.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import { EventSink } from "../events/event-sink.js";
import { timeoutMiddleware } from "../middleware/library/timeout-middleware.js";
import type { Middleware } from "../middleware/middleware.js";
import { createAgent } from "../runtime/create-agent.js";
import { AgentRunError } from "../runtime/run-result.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { SlowModel } from "../testkit/slow-model.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { rebuildProjections } from "./projection-set.js";

// A model call the run cuts off while the provider works on it may have been billed: the run's
// totals, the stored status and the attempt's model.failed say usage unknown, never a known 0.
// The plain unary call did so already; these are the two other ways a call goes out without a
// stream of its own: a unary call through the response cache, and a streaming run on a model
// that has no `stream` method (its `invoke` answer is replayed as deltas). Virtual time throughout.

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 1_000_000 };

interface Totals {
  usage: UsageTotals;
  cost: CostTotals;
}

type Mode = "plain unary" | "cached unary" | "streaming without stream()";

interface Cut {
  /** The run's deadline (`limits.timeoutMs`), the caller's abort, or the call's own timeout. */
  by: "deadline" | "abort" | "call timeout";
  mode: Mode;
}

/** Sets the call's own timeout (what `request.timeoutMs` bounds: one attempt). */
const callTimeout20: Middleware = {
  name: "call-timeout-20",
  wrapModelCall: (_ctx, request, next) => next({ ...request, timeoutMs: 20 }),
};

/**
 * Run one turn on a model that answers after 50 ms of virtual time, cut off at 20 ms as `cut`
 * says; the run's error code, its own totals, the stored status, the totals rebuilt from an
 * "essential" journal, and the journaled model.failed.
 */
async function cutOff(cut: Cut) {
  const clock = new DeterministicClock({ start: 0 });
  const model = new SlowModel({ delayMs: 50 });
  let agent = createAgent({
    model,
    pricing,
    clock,
    middleware: cut.by === "call timeout" ? [callTimeout20] : [],
    policy: { retry: { maxRetries: 0 } },
  });
  if (cut.mode === "cached unary") agent = agent.withResponseCache(new InMemoryResponseCache());
  const journal = new InMemoryEventJournal();
  const statusStore = new InMemoryHarnessStatusStore();
  const events = new EventSink("r");
  const observed = attachObservability(events, { journal, statusStore, journalEvents: "essential" });
  const controller = new AbortController();
  const options = {
    runId: "r",
    events,
    signal: controller.signal,
    ...(cut.by === "deadline" ? { limits: { timeoutMs: 20 } } : {}),
  };
  if (cut.by === "abort") {
    // The caller gives up 20 ms in, while the provider is still working on the call.
    void clock.sleep(20).then(() => controller.abort());
  }
  const outcome =
    cut.mode === "streaming without stream()" ? agent.stream("go", options).result : agent.run("go", options);
  const error = await outcome.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!AgentRunError.isAgentRunError(error)) throw new Error(`the run did not fail: ${String(error)}`);
  await observed.close();
  expect(model.callCount).toBe(1);
  expect(model.completed).toBe(0);
  const status = await statusStore.get("r");
  const rebuilt = await rebuildProjections(journal, "r");
  const rebuiltStatus = rebuilt.status.value.find((s) => s.runId === "r");
  const failed = (await journal.read("r")).filter((o) => o.event.type === "model.failed");
  const live: Totals = { usage: error.run.usage, cost: error.run.cost };
  return {
    code: error.code,
    live,
    stored: status === undefined ? undefined : { usage: status.usage, cost: status.cost },
    rebuilt:
      rebuiltStatus === undefined ? undefined : { usage: rebuiltStatus.usage, cost: rebuiltStatus.cost },
    rebuiltUsage: rebuilt.usage.value.r?.own,
    failed: failed.map((o) => o.event),
  };
}

const cases: Array<Cut & { code: string }> = [
  // The reference: the hot path (`UnaryAttempt`) already said unknown.
  { mode: "plain unary", by: "deadline", code: "timeout" },
  { mode: "plain unary", by: "abort", code: "cancelled" },
  { mode: "plain unary", by: "call timeout", code: "timeout" },
  { mode: "cached unary", by: "deadline", code: "timeout" },
  { mode: "cached unary", by: "abort", code: "cancelled" },
  { mode: "cached unary", by: "call timeout", code: "timeout" },
  { mode: "streaming without stream()", by: "deadline", code: "timeout" },
  { mode: "streaming without stream()", by: "abort", code: "cancelled" },
  { mode: "streaming without stream()", by: "call timeout", code: "timeout" },
];

describe("a model call cut off while the provider works on it: usage unknown, not 0", () => {
  it.each(cases)("$mode, cut off by the $by", async ({ code, ...cut }) => {
    const result = await cutOff(cut);
    expect(result.code).toBe(code);
    expect(result.live.usage).toMatchObject({ totalTokens: 0, unknown: true });
    expect(result.live.cost).toMatchObject({ total: 0, unknown: true });
    expect(result.stored).toEqual(result.live);
    expect(result.rebuilt).toEqual(result.live);
    expect(result.rebuiltUsage).toEqual(result.live);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]).toMatchObject({ type: "model.failed", usageUnknown: true, error: { code } });
  });

  it("a cached unary call answered before the cut, whose cache write outlasts it, is billed before its model.failed", async () => {
    const usage = {
      inputTokens: 3,
      outputTokens: 1,
      totalTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    const clock = new DeterministicClock({ start: 0 });
    const cache = new InMemoryResponseCache();
    const put = cache.put.bind(cache);
    // The provider answers at 10 ms; writing the answer to the cache takes until 40 ms.
    cache.put = async (...args) => {
      await clock.sleep(30);
      return put(...args);
    };
    const reply = { message: assistant("done"), finishReason: "stop" as const, usage };
    // A wrap that gives up on the call at 20 ms ends the attempt while the cache write runs.
    const agent = createAgent({
      model: new SlowModel({ delayMs: 10, reply }),
      pricing,
      clock,
      middleware: [timeoutMiddleware({ timeoutMs: 20 })],
      policy: { retry: { maxRetries: 0 } },
    }).withResponseCache(cache);
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("r");
    const seen: string[] = [];
    events.subscribe((record) => seen.push(record.event.type));
    const observed = attachObservability(events, { journal, statusStore, journalEvents: "essential" });
    const error = await agent.run("go", { runId: "r", events }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!AgentRunError.isAgentRunError(error)) throw new Error(`the run did not fail: ${String(error)}`);
    clock.advance(30); // the cache write ends after the run did
    await observed.close();
    expect(error.run.usage).toMatchObject({ totalTokens: 4 });
    expect(error.run.cost).toMatchObject({ total: 4 });
    // Nothing about the call after its end: its billing went out before model.failed.
    expect(seen.slice(seen.indexOf("model.failed"))).not.toContain("usage.recorded");
    const failed = (await journal.read("r")).find((o) => o.event.type === "model.failed");
    expect(failed?.event).toMatchObject({ usage: { totalTokens: 4 }, cost: { total: 4 } });
    const status = await statusStore.get("r");
    expect({ usage: status?.usage, cost: status?.cost }).toEqual({
      usage: error.run.usage,
      cost: error.run.cost,
    });
    const rebuilt = (await rebuildProjections(journal, "r")).status.value.find((s) => s.runId === "r");
    expect({ usage: rebuilt?.usage, cost: rebuilt?.cost }).toEqual({
      usage: error.run.usage,
      cost: error.run.cost,
    });
  });

  it("a call answered before any cut is billed as known (cached unary, streaming without stream())", async () => {
    const usage = {
      inputTokens: 3,
      outputTokens: 1,
      totalTokens: 4,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    };
    for (const streaming of [false, true]) {
      const reply = { message: assistant("done"), finishReason: "stop" as const, usage };
      const agent = createAgent({
        model: new SlowModel({ delayMs: 10, reply }),
        pricing,
        clock: new DeterministicClock({ start: 0 }),
      }).withResponseCache(new InMemoryResponseCache());
      const options = { limits: { timeoutMs: 20 } };
      const result = streaming ? await agent.stream("go", options).result : await agent.run("go", options);
      expect(result.text).toBe("done");
      expect(result.usage).toMatchObject({ totalTokens: 4 });
      expect(result.usage.unknown).toBeUndefined();
      expect(result.cost).toMatchObject({ total: 4 });
      expect(result.cost.unknown).toBeUndefined();
    }
  });
});
