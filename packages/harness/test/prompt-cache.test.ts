/**
 * Acceptance: the loop's prompt-cache layout. Every request of a multi-turn run with tools and a
 * dynamic timestamp keeps its predecessor's cacheable prefix byte-identical (the timestamp sits
 * in the volatile tail); a middleware that edits the system prompt without declaring it trips
 * `protectPromptPrefix`.
 */
import { AgentHarness } from "@tinyagents/harness";
import { PromptCacheLayout, promptCacheKey, promptFingerprint } from "@tinyagents/harness/cache";
import { lowerLayer } from "@tinyagents/harness/internal";
import { dynamicPromptMiddleware } from "@tinyagents/harness/middleware";
import {
  DeterministicClock,
  expectPrefixBusted,
  expectPrefixPreserved,
  FakeTool,
  PrefixAssertionError,
  PrefixRecorder,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { system, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting } from "./helpers.js";

function timestampedAgent(clock: DeterministicClock) {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "search", arguments: { q: "a" } }] },
    {
      toolCalls: [
        { name: "search", arguments: { q: "b" } },
        { name: "fetch", arguments: { id: 1 } },
      ],
    },
    "done",
  ]);
  const { harness } = makeHarness({ clock, instructions: "You are a careful research agent." });
  harness
    .registerModel("m", model)
    .registerTool(FakeTool.returning("search", "results"))
    .registerTool(FakeTool.returning("fetch", "page"))
    .withVolatileContext((_state, run) => `Current time: ${new Date(run.clock.now()).toISOString()}`);
  return { harness, model };
}

describe("prompt-cache layout of the loop", () => {
  it("keeps every request's cacheable prefix byte-identical to its predecessor's; the timestamp sits in the tail", async () => {
    const clock = new DeterministicClock();
    const { harness, model } = timestampedAgent(clock);
    const recorder = new PrefixRecorder();
    harness.use(recorder.middleware());
    // Time moves between turns: the volatile tail differs on every request.
    harness.use({ name: "ticker", changes: "metadata", afterModel: () => void clock.advance(60_000) });
    const { error } = await runCollecting(harness, "research this", {}, {});
    expect(error).toBeUndefined();

    const requests = model.requests;
    expect(requests).toHaveLength(3);
    recorder.assertPrefixesPreserved(3);
    for (let i = 1; i < requests.length; i++) {
      const { earlier, later } = expectPrefixPreserved(requests[i - 1]!, requests[i]!);
      // Fingerprints equal: the later prefix cut at the earlier prefix's length hashes the same.
      expect(promptFingerprint(requests[i]!, { maxMessages: earlier.prefixMessageCount })).toBe(
        requests[i - 1]!.promptFingerprint,
      );
      // The stable part (system + tools) is identical on every turn: one provider routing key.
      expect(later.stableFingerprint).toBe(earlier.stableFingerprint);
    }
    for (const request of requests) {
      expect(request.cacheSegments?.map((s) => [s.id, s.cacheable])).toEqual([
        ["system", true],
        ["tools", true],
        ["history", true],
        ["volatile", false],
      ]);
      expect(text(request.messages.at(-1))).toMatch(/^Current time: /);
      expect(request.promptFingerprint).toBe(promptFingerprint(request));
    }
    // Different timestamps, same prefixes.
    expect(new Set(requests.map((r) => text(r.messages.at(-1)))).size).toBe(3);
    expect(new Set(requests.map((r) => promptCacheKey(r))).size).toBe(1);
  });

  it("the volatile context never enters the transcript", async () => {
    const clock = new DeterministicClock();
    const { harness } = timestampedAgent(clock);
    const { run } = await runCollecting(harness, "research this");
    expect(run.messages.some((m) => text(m).startsWith("Current time"))).toBe(false);
  });

  it("a middleware that edits the system prompt without declaring it trips protectPromptPrefix", async () => {
    const clock = new DeterministicClock();
    const { harness, model } = timestampedAgent(clock);
    harness.withPolicy({ protectPromptPrefix: true }).use({
      name: "sneaky",
      beforeModel: (_ctx, request) => {
        request.messages[0] = system(`${text(request.messages[0])} Today is ${clock.now()}.`);
      },
    });
    const { error, events } = await runCollecting(harness, "research this");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain('middleware "sneaky" changed the cacheable prompt prefix');
    expect(error?.details).toMatchObject({ middleware: "sneaky", segment: "system" });
    const [changed] = events.ofType("cache.layout_changed");
    expect(changed?.segment).toBe("system");
    expect(changed?.before).toMatch(/^[0-9a-f]{64}$/);
    expect(changed?.after).not.toBe(changed?.before);
    expect(model.callCount).toBe(0);
  });

  it("a declared prefix change is allowed, reported, and the request's fingerprint is refreshed", async () => {
    const { harness, model } = timestampedAgent(new DeterministicClock());
    harness.withPolicy({ protectPromptPrefix: true }).use({
      name: "rewriter",
      changes: "prefix",
      beforeModel: (_ctx, request) => {
        request.messages[0] = system("You are terse.");
      },
    });
    const { error, events } = await runCollecting(harness, "research this");
    expect(error).toBeUndefined();
    expect(events.ofType("cache.layout_changed")).toHaveLength(3);
    for (const request of model.requests) expect(request.promptFingerprint).toBe(promptFingerprint(request));
    const [changed] = events.ofType("cache.layout_changed");
    expect(changed?.after).toBe(model.requests[0]?.promptFingerprint);
  });

  it("appending in the tail (dynamic prompt) keeps the prefix and its fingerprint", async () => {
    const { harness, model } = timestampedAgent(new DeterministicClock());
    harness.withPolicy({ protectPromptPrefix: true }).use(dynamicPromptMiddleware(() => "Be brief."));
    const { error, events } = await runCollecting(harness, "research this");
    expect(error).toBeUndefined();
    expect(events.ofType("cache.layout_changed")).toEqual([]);
    for (const request of model.requests) expect(request.promptFingerprint).toBe(promptFingerprint(request));
    new PrefixRecorder().record(model.requests[0]!).record(model.requests[1]!).assertPrefixesPreserved();
  });

  it("expectPrefixBusted names the segment: tools changed, history rewritten", async () => {
    const { harness, model } = timestampedAgent(new DeterministicClock());
    await runCollecting(harness, "research this");
    const [first, second] = model.requests;
    const noTools = { ...second!, tools: [] };
    expect(
      expectPrefixBusted(first!, { ...noTools, promptFingerprint: promptFingerprint(noTools) }, "tools")
        .segment,
    ).toBe("tools");
    const rewritten = {
      ...second!,
      messages: second!.messages.map((m, i) => (i === 1 ? system("edited") : m)),
    };
    delete rewritten.promptFingerprint;
    const broke = expectPrefixBusted(first!, rewritten, "history");
    expect(broke.messageIndex).toBe(0);
    expect(() => expectPrefixPreserved(first!, rewritten)).toThrow(PrefixAssertionError);
    expect(() => expectPrefixBusted(first!, second!)).toThrow(/preserves it/);
  });

  it("a lying promptFingerprint is caught", () => {
    const request = { messages: [system("a")], promptFingerprint: "0".repeat(64) };
    expect(() => expectPrefixPreserved(request, request)).toThrow(/hashes to/);
  });

  it("requests without instructions or tools still carry a history segment and a fingerprint", async () => {
    const model = new ScriptedModel(["hi"]);
    const harness = new AgentHarness().registerModel("m", model);
    await lowerLayer(harness).invokeDefault(undefined, "hello");
    const [request] = model.requests;
    expect(request?.cacheSegments).toEqual([
      { id: "history", role: "history", cacheable: true, messageCount: 1 },
    ]);
    expect(request?.promptFingerprint).toBe(PromptCacheLayout.fromRequest(request!).fingerprint);
  });
});
