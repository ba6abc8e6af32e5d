import {
  type ChatModel,
  type ModelCallOptions,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamItem,
  ProviderError,
  TinyAgentsError,
  type Usage,
  type UsageTotals,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { InMemoryResponseCache } from "../cache/in-memory-response-cache.js";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { CostTotals } from "../contracts/cost-totals.js";
import { EventSink } from "../events/event-sink.js";
import { timeoutMiddleware } from "../middleware/library/timeout-middleware.js";
import type { Middleware } from "../middleware/middleware.js";
import { createAgent } from "../runtime/create-agent.js";
import { AgentRunError } from "../runtime/run-result.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { FakeTool } from "../testkit/fake-tool.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import type { JournalEvents } from "./journal-events.js";
import { type ProjectionSnapshots, rebuildProjections } from "./projection-set.js";

// Issue 40 (fold usage.recorded / cost.recorded into their neighbours): an "essential" journal
// keeps each attempt's usage and cost on its model.completed / model.failed only, and every
// reader rebuilds the same totals as the live run from it, from an "all" journal (both), and from
// a journal written before the fold (both, without `cost` on the terminal event).

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 }; // $1 / $2 per token
const usage = (inputTokens: number, outputTokens: number): Usage => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});

interface Totals {
  usage: UsageTotals;
  cost: CostTotals;
}

interface Journaled {
  /** The run's own totals (its result, or the failed run's). */
  live: Totals;
  /** The status record the live pipeline stored. */
  stored: Totals;
  journal: InMemoryEventJournal;
}

type Go = (events: EventSink, runId: string) => Promise<Totals>;

/** Run `go` with a journal keeping `journalEvents`; the live totals, the stored status, the journal. */
async function journaled(journalEvents: JournalEvents, go: Go): Promise<Journaled> {
  const journal = new InMemoryEventJournal();
  const statusStore = new InMemoryHarnessStatusStore();
  const events = new EventSink("r");
  const observed = attachObservability(events, { journal, statusStore, journalEvents });
  const live = await go(events, "r");
  await observed.close();
  const status = await statusStore.get("r");
  if (status === undefined) throw new Error("no status stored");
  return { live, stored: { usage: status.usage, cost: status.cost }, journal };
}

/** The run's totals whether it completed or failed. */
function totalsOf(outcome: Promise<{ usage: UsageTotals; cost: CostTotals }>): Promise<Totals> {
  return outcome.then(
    (result) => ({ usage: result.usage, cost: result.cost }),
    (error: unknown) => {
      if (!AgentRunError.isAgentRunError(error)) throw error;
      return { usage: error.run.usage, cost: error.run.cost };
    },
  );
}

/** The rebuilt projections' totals of run `r`: the status projection's and the usage projection's. */
function rebuiltTotals(rebuilt: ProjectionSnapshots): { status: Totals; usage: Totals } {
  const status = rebuilt.status.value.find((s) => s.runId === "r");
  const own = rebuilt.usage.value.r?.own;
  if (status === undefined || own === undefined) throw new Error("run r not rebuilt");
  return { status: { usage: status.usage, cost: status.cost }, usage: own };
}

/** A journal as a version before the fold wrote it: separate records, no usage/cost on the ends. */
async function olderFormat(all: InMemoryEventJournal): Promise<InMemoryEventJournal> {
  const old = new InMemoryEventJournal();
  for (const o of await all.read("r")) {
    const event = { ...o.event } as AgentEvent & { cost?: unknown; usage?: unknown };
    if (event.type === "model.completed") delete event.cost;
    if (event.type === "model.failed") {
      delete event.cost;
      delete event.usage;
    }
    await old.append(observationWith(o, event as AgentEvent));
  }
  return old;
}

function observationWith(o: AgentObservation, event: AgentEvent): AgentObservation {
  return { ...o, event };
}

/**
 * Every way of reading the run gives the live totals: the stored status, the projections
 * rebuilt from the essential journal, from an "all" journal, and from an older-format journal.
 */
async function expectSameEverywhere(go: Go): Promise<{ essential: Journaled; types: string[] }> {
  const essential = await journaled("essential", go);
  const all = await journaled("all", go);
  const live = essential.live;
  expect(all.live).toEqual(live);
  expect(essential.stored).toEqual(live);
  for (const journal of [essential.journal, all.journal, await olderFormat(all.journal)]) {
    const rebuilt = rebuiltTotals(await rebuildProjections(journal, "r"));
    expect(rebuilt.status).toEqual(live);
    expect(rebuilt.usage).toEqual(live);
  }
  const types = (await essential.journal.read("r")).map((o) => o.event.type);
  return { essential, types };
}

describe("an essential journal folds usage.recorded and cost.recorded into the attempt's end", () => {
  it("a 1-step run with a priced model journals 4 records; model.completed carries usage and cost", async () => {
    const go: Go = (events, runId) => {
      const agent = createAgent({ model: new ScriptedModel(["hi"], { usage: usage(3, 2) }), pricing });
      return totalsOf(agent.run("go", { runId, events }));
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types).toEqual(["run.started", "model.started", "model.completed", "run.completed"]);
    const completed = (await essential.journal.read("r"))[2]?.event;
    expect(completed).toMatchObject({ usage: usage(3, 2), cost: { total: 7, input: 3, output: 4 } });
    expect(essential.live.cost).toMatchObject({ total: 7 });
    expect(essential.live.cost.unknown).toBeUndefined();
    // The "all" journal still has them, live subscribers too.
    const all = await journaled("all", go);
    expect((await all.journal.read("r")).map((o) => o.event.type)).toEqual([
      "run.started",
      "route.selected",
      "model.started",
      "usage.recorded",
      "cost.recorded",
      "model.completed",
      "state.updated",
      "run.completed",
    ]);
  });

  it("a step that calls a tool journals 4 records (model and tool start and end)", async () => {
    const go: Go = (events, runId) => {
      const model = new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: {} }] }, "done"], {
        usage: usage(5, 1),
      });
      const agent = createAgent({ model, pricing, tools: [new FakeTool("echo", async () => "ok")] });
      return totalsOf(agent.run("go", { runId, events }));
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types).toEqual([
      "run.started",
      "model.started",
      "model.completed",
      "tool.started",
      "tool.completed",
      "model.started",
      "model.completed",
      "run.completed",
    ]);
    expect(essential.live.usage.totalTokens).toBe(12);
    expect(essential.live.cost.total).toBe(14);
  });

  it("an unpriced model: usage known, cost unknown (never $0), from every journal", async () => {
    const go: Go = (events, runId) => {
      const agent = createAgent({ model: new ScriptedModel(["hi"], { usage: usage(3, 2) }) });
      return totalsOf(agent.run("go", { runId, events }));
    };
    const { essential } = await expectSameEverywhere(go);
    expect(essential.live.usage).toMatchObject({ totalTokens: 5 });
    expect(essential.live.usage.unknown).toBeUndefined();
    expect(essential.live.cost.unknown).toBe(true);
    const completed = (await essential.journal.read("r")).find((o) => o.event.type === "model.completed");
    expect(completed?.event).not.toHaveProperty("cost");
  });

  it("a stream that failed after reporting usage: model.failed carries it, a lower bound", async () => {
    const go: Go = (events, runId) => {
      const model = new StreamingMock([
        [
          { type: "start" },
          { type: "usage", usage: usage(10, 2) },
          { type: "text_delta", text: "Hel" },
          { type: "error", message: "connection reset mid-stream", retryable: false },
        ],
      ]);
      const agent = createAgent({ model, pricing, policy: { retry: { maxRetries: 0 } } });
      return totalsOf(agent.stream("go", { runId, events }).result);
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types).not.toContain("usage.recorded");
    expect(types).not.toContain("cost.recorded");
    const failed = (await essential.journal.read("r")).find((o) => o.event.type === "model.failed");
    expect(failed?.event).toMatchObject({ usage: usage(10, 2), cost: { total: 14 }, usageUnknown: true });
    expect(essential.live.usage).toMatchObject({ totalTokens: 12, unknown: true });
    expect(essential.live.cost).toMatchObject({ total: 14, unknown: true });
  });

  it("a retried call: each billed attempt counted once (a failed stream, then a success)", async () => {
    const go: Go = (events, runId) => {
      const model = new StreamingMock([
        [
          { type: "start" },
          { type: "usage", usage: usage(10, 2) },
          { type: "error", message: "overloaded", status: 529, retryable: true },
        ],
        [
          { type: "start" },
          { type: "text_delta", text: "done" },
          { type: "usage", usage: usage(3, 1) },
          { type: "finish", finishReason: "stop" },
        ],
      ]);
      const agent = createAgent({
        model,
        pricing,
        policy: { retry: { maxRetries: 1, initialBackoffMs: 0 } },
      });
      return totalsOf(agent.stream("go", { runId, events }).result);
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types.filter((t) => t === "model.started")).toHaveLength(2);
    expect(essential.live.usage).toMatchObject({ inputTokens: 13, outputTokens: 3, unknown: true });
    expect(essential.live.cost).toMatchObject({ total: 19, unknown: true });
  });

  it("a unary call retried after a refusal: only the answered attempt is billed", async () => {
    const go: Go = (events, runId) => {
      const busy = new ProviderError({
        provider: "p",
        message: "busy",
        kind: "upstream_unhealthy",
        status: 503,
      });
      const model = new ScriptedModel([busy, "ok"], { usage: usage(4, 4) });
      const agent = createAgent({
        model,
        pricing,
        policy: { retry: { maxRetries: 1, initialBackoffMs: 0 } },
      });
      return totalsOf(agent.run("go", { runId, events }));
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types).toContain("model.failed");
    expect(essential.live.usage.totalTokens).toBe(8);
    expect(essential.live.cost.total).toBe(12);
  });

  it("a cache-served response is not billed: no cost on its model.completed, the totals stay the first call's", async () => {
    const cache = new InMemoryResponseCache();
    const model = new ScriptedModel(["cached answer"], { usage: usage(6, 3) });
    const agent = createAgent({ model, pricing }).withResponseCache(cache);
    await agent.run("same question"); // fills the cache
    const go: Go = (events, runId) => totalsOf(agent.run("same question", { runId, events }));
    const { essential } = await expectSameEverywhere(go);
    const completed = (await essential.journal.read("r")).find((o) => o.event.type === "model.completed");
    expect(completed?.event).toMatchObject({ servedFromCache: true, usage: usage(6, 3) });
    expect(completed?.event).not.toHaveProperty("cost");
    expect(essential.live.usage.totalTokens).toBe(0);
    expect(essential.live.cost).toMatchObject({ total: 0 });
    expect(essential.live.cost.unknown).toBeUndefined();
  });
});

/**
 * A model whose stream starts, reports its usage (10 in, 2 out), then hangs until its call is
 * aborted; `reported` settles once the usage item was handed over. The first `refusals` calls
 * are refused before they begin (529, retryable: not billed).
 */
class HangsAfterUsage implements ChatModel {
  readonly provider = "hangs";
  readonly modelId = "hangs-after-usage";
  readonly reported: Promise<void>;
  private markReported: () => void = () => {};

  constructor(private refusals = 0) {
    this.reported = new Promise((resolve) => {
      this.markReported = resolve;
    });
  }

  invoke(): Promise<ModelResponse> {
    return Promise.reject(new Error("stream only"));
  }

  async *stream(_request: ModelRequest, options?: ModelCallOptions): AsyncIterable<ModelStreamItem> {
    if (this.refusals > 0) {
      this.refusals--;
      yield { type: "error", message: "overloaded", status: 529, retryable: true };
      return;
    }
    yield { type: "start" };
    yield { type: "usage", usage: usage(10, 2) };
    this.markReported();
    const signal = options?.signal;
    await new Promise<void>((resolve) => {
      if (signal?.aborted) resolve();
      else signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    throw new Error("aborted");
  }
}

describe("an attempt the run ends while it streams (failRun's closeAll)", () => {
  it("a wrap that gives up on next(): model.failed carries the usage and cost, and every reader agrees", async () => {
    const go: Go = (events, runId) => {
      const model = new HangsAfterUsage();
      // Gives up on the call once its stream reported usage (a hedge, a timeout of its own).
      const givesUp: Middleware = {
        name: "gives-up",
        async wrapModelCall(_ctx, request, next) {
          next(request).catch(() => {});
          await model.reported;
          throw new TinyAgentsError("provider", "gave up waiting");
        },
      };
      const agent = createAgent({
        model,
        pricing,
        middleware: [givesUp],
        policy: { retry: { maxRetries: 0 } },
      });
      return totalsOf(agent.stream("go", { runId, events }).result);
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(essential.live.usage).toMatchObject({ inputTokens: 10, outputTokens: 2, unknown: true });
    expect(essential.live.cost).toMatchObject({ total: 14, unknown: true });
    expect(types).not.toContain("usage.recorded");
    const failed = (await essential.journal.read("r")).find((o) => o.event.type === "model.failed");
    expect(failed?.event).toMatchObject({
      usage: usage(10, 2),
      cost: { total: 14 },
      usageUnknown: true,
      error: { code: "cancelled" },
    });
    // Live: the attempt's records come before its end, nothing of it after.
    const all = await journaled("all", go);
    const live = (await all.journal.read("r")).map((o) => o.event.type);
    const end = live.indexOf("model.failed");
    expect(live.indexOf("usage.recorded")).toBeLessThan(end);
    expect(live.indexOf("cost.recorded")).toBeLessThan(end);
    expect(live.lastIndexOf("usage.recorded")).toBe(live.indexOf("usage.recorded"));
    expect(live.at(-1)).toBe("run.failed");
  });
});

/** A unary model whose call never answers; `called` settles once the request went out. */
class NeverAnswers implements ChatModel {
  readonly provider = "never";
  readonly modelId = "never-answers";
  readonly called: Promise<void>;
  private markCalled: () => void = () => {};

  constructor() {
    this.called = new Promise((resolve) => {
      this.markCalled = resolve;
    });
  }

  invoke(): Promise<ModelResponse> {
    this.markCalled();
    return new Promise(() => {});
  }
}

describe("timeoutMiddleware expiring during a retry's stream (its budget covers the retries)", () => {
  it("the retry's model.failed carries what it billed, in every reader", async () => {
    const go: Go = (events, runId) => {
      const model = new HangsAfterUsage(1);
      // Virtual time: the 529 at 0 ms, the retry after a 10 ms backoff, its usage, then nothing
      // until the middleware's 40 ms pass (the attempt's own 40 ms timer would fire at 50 ms).
      const agent = createAgent({
        model,
        pricing,
        clock: new DeterministicClock({ start: 0 }),
        middleware: [timeoutMiddleware({ timeoutMs: 40 })],
        policy: { retry: { maxRetries: 1, initialBackoffMs: 10, jitter: 0 } },
      });
      return totalsOf(agent.stream("go", { runId, events }).result);
    };
    const { essential, types } = await expectSameEverywhere(go);
    expect(types.filter((t) => t === "model.failed")).toHaveLength(2);
    expect(essential.live.usage).toMatchObject({ inputTokens: 10, outputTokens: 2, unknown: true });
    expect(essential.live.cost).toMatchObject({ total: 14, unknown: true });
    const failed = (await essential.journal.read("r")).filter((o) => o.event.type === "model.failed");
    expect(failed[1]?.event).toMatchObject({
      attempt: 2,
      usage: usage(10, 2),
      cost: { total: 14 },
      usageUnknown: true,
    });
  });
});

describe("a unary attempt the run ends while the provider works on it", () => {
  it("its model.failed says usageUnknown, so the stored status and the rebuilt projections stay lower bounds", async () => {
    const go: Go = (events, runId) => {
      const model = new NeverAnswers();
      const givesUp: Middleware = {
        name: "gives-up",
        async wrapModelCall(_ctx, request, next) {
          next(request).catch(() => {});
          await model.called;
          throw new TinyAgentsError("provider", "gave up waiting");
        },
      };
      const agent = createAgent({
        model,
        pricing,
        middleware: [givesUp],
        policy: { retry: { maxRetries: 0 } },
      });
      return totalsOf(agent.run("go", { runId, events }));
    };
    const { essential } = await expectSameEverywhere(go);
    expect(essential.live.usage).toMatchObject({ totalTokens: 0, unknown: true });
    expect(essential.live.cost).toMatchObject({ total: 0, unknown: true });
    const failed = (await essential.journal.read("r")).find((o) => o.event.type === "model.failed");
    expect(failed?.event).toMatchObject({ usageUnknown: true, error: { code: "cancelled" } });
  });
});

describe("older journals", () => {
  it("a journal with both usage.recorded and model.completed usage is counted once", async () => {
    const journal = new InMemoryEventJournal();
    const base = { runId: "r", rootRunId: "r", depth: 0, ts: 0 };
    const events: AgentEvent[] = [
      { type: "run.started", input: 1 },
      { type: "model.started", callId: "c1", model: "main", provider: "p", providerModelId: "m", attempt: 1 },
      { type: "usage.recorded", callId: "c1", model: "main", usage: usage(3, 2) },
      { type: "cost.recorded", callId: "c1", model: "main", cost: cost(3, 4) },
      {
        type: "model.completed",
        callId: "c1",
        model: "main",
        durationMs: 1,
        toolCalls: 0,
        servedFromCache: false,
        usage: usage(3, 2),
      },
    ];
    for (const [offset, event] of events.entries())
      await journal.append({ ...base, id: `e${offset}`, offset, event } as AgentObservation);
    const rebuilt = rebuiltTotals(await rebuildProjections(journal, "r"));
    expect(rebuilt.usage.usage).toMatchObject({ inputTokens: 3, outputTokens: 2, totalTokens: 5, calls: 1 });
    expect(rebuilt.usage.cost).toMatchObject({ total: 7 });
    expect(rebuilt.usage.cost.unknown).toBeUndefined();
    expect(rebuilt.status).toEqual(rebuilt.usage);
  });
});

function cost(input: number, output: number): CostTotals {
  return { currency: "USD", input, output, cacheRead: 0, cacheWrite: 0, total: input + output };
}
