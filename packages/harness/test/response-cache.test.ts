/**
 * Acceptance: the local response cache — hit/miss events, no cross-model hits, the LRU byte
 * bound, single-flight coalescing, streaming replay, and cached responses never billed.
 */
import {
  AgentHarness,
  EventSink,
  InMemoryResponseCache,
  type ResponseCache,
  runText,
} from "@tinyagents/harness";
import { cacheKey, modelCacheIdentity } from "@tinyagents/harness/cache";
import { lowerLayer } from "@tinyagents/harness/internal";
import { DeterministicClock, EventRecorder, ScriptedModel, SlowModel } from "@tinyagents/harness/testkit";
import { type JsonValue, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, runStreaming, tokens } from "./helpers.js";

const PRICING = { inputPerMillion: 1_000_000, outputPerMillion: 1_000_000 };

describe("response cache", () => {
  it("misses, stores, then serves the same request from the cache: not billed, marked servedFromCache", async () => {
    const model = new ScriptedModel(["the answer"], { usage: tokens(10, 5) });
    const { harness } = makeHarness();
    const cache = new InMemoryResponseCache();
    harness.registerModel("m", model, { pricing: PRICING }).withResponseCache(cache);

    const first = await runCollecting(harness, "question");
    expect(first.events.ofType("cache.miss")).toHaveLength(1);
    expect(first.run.cost.total).toBeGreaterThan(0);
    expect(first.run.usage.inputTokens).toBe(10);

    const second = await runCollecting(harness, "question");
    expect(second.error).toBeUndefined();
    expect(runText(second.run)).toBe("the answer");
    const [hit] = second.events.ofType("cache.hit");
    expect(hit).toMatchObject({ model: "m", coalesced: false });
    expect(hit?.key).toBe(first.events.ofType("cache.miss")[0]?.key);
    expect(second.run.finalResponse?.servedFromCache).toBe(true);
    expect(second.events.ofType("model.completed")[0]?.servedFromCache).toBe(true);
    expect(second.events.ofType("usage.recorded")).toEqual([]);
    expect(second.run.usage.inputTokens).toBe(0);
    expect(second.run.cost.total).toBe(0);
    expect(model.callCount).toBe(1);
    expect(cache.stats()).toMatchObject({ hits: 1, entries: 1 });
  });

  it("never serves one model's answer to another (keys are scoped by model identity)", async () => {
    const cache = new InMemoryResponseCache();
    const a = new ScriptedModel(["from a"], { modelId: "a" });
    const b = new ScriptedModel(["from b"], { modelId: "b" });
    const { harness } = makeHarness();
    harness.registerModel("a", a).registerModel("b", b).withResponseCache(cache);
    await runCollecting(harness, "same question");
    harness.setDefaultModel("b");
    const { run, events } = await runCollecting(harness, "same question");
    expect(runText(run)).toBe("from b");
    expect(events.ofType("cache.hit")).toEqual([]);
    expect(b.callCount).toBe(1);
    const request = { messages: [user("same question")] };
    expect(cacheKey(request, modelCacheIdentity(a))).not.toBe(cacheKey(request, modelCacheIdentity(b)));
  });

  it("keeps streaming and unary entries and namespaces apart, and replays hits as deltas when streaming", async () => {
    const cache = new InMemoryResponseCache();
    const model = new ScriptedModel(["unary answer", "streamed answer"]);
    const { harness } = makeHarness();
    harness.registerModel("m", model).withResponseCache(cache);
    await runCollecting(harness, "q");
    const streamed = await runStreaming(harness, "q");
    expect(runText(streamed.run)).toBe("streamed answer");
    const replay = await runStreaming(harness, "q");
    expect(replay.events.ofType("cache.hit")).toHaveLength(1);
    expect(replay.events.ofType("model.text_delta").length).toBeGreaterThan(0);
    expect(runText(replay.run)).toBe("streamed answer");
    expect(replay.run.finalResponse?.servedFromCache).toBe(true);

    const other = new AgentHarness({ clock: new DeterministicClock() })
      .registerModel("m", new ScriptedModel(["tenant b"]))
      .withResponseCache(cache, { namespace: "tenant-b" });
    expect(runText(await lowerLayer(other).invokeDefault(undefined, "q"))).toBe("tenant b");
  });

  it("caches every turn of a tool loop by default, only first turns with multiTurn: false", async () => {
    // Asks for the tool on a fresh question, answers once it has the result.
    const step = (request: { messages: { role: string }[] }) =>
      request.messages.at(-1)?.role === "user" ? { toolCalls: [{ name: "t" }] } : "done";
    const run = async (multiTurn: boolean) => {
      const cache = new InMemoryResponseCache();
      const { harness } = makeHarness();
      const model = new ScriptedModel([step, step, step, step]);
      harness
        .registerModel("m", model)
        .registerTool({
          name: "t",
          description: "t",
          parameters: { type: "object" },
          validate: (args) => ({ ok: true, value: args }),
          execute: () => "ok",
        })
        .withResponseCache(cache, { multiTurn });
      await runCollecting(harness, "go");
      await runCollecting(harness, "go");
      return 4 - model.remaining;
    };
    expect(await run(true)).toBe(2);
    expect(await run(false)).toBe(3);
  });

  it("bounds the in-memory cache by bytes and entries, least recently used first", async () => {
    const value = (n: number): JsonValue => ({ text: "x".repeat(n) });
    const cache = new InMemoryResponseCache({ maxBytes: 300, maxEntries: 10 });
    await cache.put("a", value(100));
    await cache.put("b", value(100));
    expect(await cache.get("a")).toEqual(value(100)); // a is now most recently used
    await cache.put("c", value(100));
    expect(cache.bytes).toBeLessThanOrEqual(300);
    expect(await cache.get("b")).toBeUndefined(); // evicted: least recently used
    expect(await cache.get("a")).toBeDefined();
    expect(await cache.get("c")).toBeDefined();
    expect(cache.putSync("huge", value(1000))).toBe(false);
    expect(cache.stats().evictions).toBe(1);

    const few = new InMemoryResponseCache({ maxEntries: 2 });
    for (const key of ["1", "2", "3"]) few.putSync(key, key);
    expect(few.size).toBe(2);
    expect(few.getSync("1")).toBeUndefined();
  });

  it("expires entries after their TTL and returns copies", async () => {
    let now = 0;
    const cache = new InMemoryResponseCache({ ttlMs: 100, now: () => now });
    await cache.put("k", { a: [1] });
    const copy = (await cache.get("k")) as { a: number[] };
    copy.a.push(2);
    expect(await cache.get("k")).toEqual({ a: [1] });
    now = 100;
    expect(await cache.get("k")).toBeUndefined();
    await cache.put("short", 1, { ttlMs: 10 });
    now = 105;
    expect(await cache.get("short")).toBe(1);
    expect(() => new InMemoryResponseCache({ maxBytes: 0 })).toThrow(/maxBytes/);
  });

  it("coalesces concurrent identical misses into one provider call (single flight)", async () => {
    const model = new SlowModel({ delayMs: 20, reply: "slow answer" });
    const harness = new AgentHarness()
      .registerModel("m", model)
      .withResponseCache(new InMemoryResponseCache());
    const recorders = [new EventRecorder(), new EventRecorder(), new EventRecorder()];
    const runs = await Promise.all(
      recorders.map((events, i) =>
        lowerLayer(harness).invokeCollectingPartial(undefined, undefined, { runId: `r${i}` }, "same", {
          events: attached(events, `r${i}`),
        }),
      ),
    );
    expect(runs.map((o) => runText(o.run))).toEqual(["slow answer", "slow answer", "slow answer"]);
    expect(model.callCount).toBe(1);
    const hits = recorders.flatMap((r) => r.ofType("cache.hit"));
    expect(hits).toHaveLength(2);
    expect(hits.every((h) => h.coalesced)).toBe(true);
    expect(recorders.flatMap((r) => r.ofType("cache.miss"))).toHaveLength(1);
  });

  it("treats a failing cache as a miss and reports it", async () => {
    const errors: string[] = [];
    const broken: ResponseCache = {
      get: async () => {
        throw new Error("disk on fire");
      },
      put: async () => {
        throw new Error("still on fire");
      },
    };
    const harness = new AgentHarness()
      .registerModel("m", new ScriptedModel(["fine"]))
      .withResponseCache(broken, { onError: (e, op) => errors.push(`${op}: ${(e as Error).message}`) });
    expect(runText(await lowerLayer(harness).invokeDefault(undefined, "q"))).toBe("fine");
    expect(errors).toEqual(["get: disk on fire", "put: still on fire"]);
    expect(() => new AgentHarness().withResponseCache({} as ResponseCache)).toThrow(/get\(key\)/);
  });

  it("honours a request's responseCache.enabled = false", async () => {
    const model = new ScriptedModel(["one", "two"]);
    const harness = new AgentHarness()
      .registerModel("m", model)
      .withResponseCache(new InMemoryResponseCache());
    harness.use({
      name: "no_cache",
      changes: "metadata",
      beforeModel: (_ctx, request) => {
        request.responseCache = { enabled: false };
      },
    });
    await lowerLayer(harness).invokeDefault(undefined, "q");
    expect(runText(await lowerLayer(harness).invokeDefault(undefined, "q"))).toBe("two");
  });
});

function attached(events: EventRecorder, id: string): EventSink {
  const sink = new EventSink(id);
  events.attach(sink);
  return sink;
}
