import { user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { estimateRequestTokens } from "./estimate-request.js";
import { runAgent, setup } from "./harness.fixture.js";
import { rateLimitMiddleware } from "./rate-limit-middleware.js";
import { TokenBucket } from "./token-bucket.js";

/** Three model calls: tool, tool, answer. */
const threeCalls = () =>
  new ScriptedModel([{ toolCalls: [{ name: "t" }] }, { toolCalls: [{ name: "t" }] }, "done"]);

describe("rateLimitMiddleware", () => {
  it("waits on the virtual clock when the request bucket is empty, then emits rate_limit.waited", async () => {
    const { harness, clock } = setup();
    harness
      .registerModel("m", threeCalls())
      .registerTool(FakeTool.returning("t", "ok"))
      .use(rateLimitMiddleware({ requests: { capacity: 2, refillPerSecond: 1 } }));
    const started = performance.now();
    const { error, events } = await runAgent(harness, "hi");
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toBeUndefined();
    // Two calls fit the burst; the third waits one refill (1 s of virtual time).
    expect(events.ofType("rate_limit.waited").map((e) => [e.waitedMs, e.reason])).toEqual([
      [1_000, "requests"],
    ]);
    expect(events.ofType("rate_limit.waited")[0]?.callId).toMatch(/-model-3$/);
    expect(clock.now()).toBe(1_000);
  });

  it("fails with limit_exceeded instead of waiting when behavior is fail", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "unused"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(rateLimitMiddleware({ requests: { capacity: 1, refillPerSecond: 0.5 }, behavior: "fail" }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toMatchObject({ limit: "rate_limit_requests", retryAfterMs: 2_000 });
    expect(model.callCount).toBe(1);
    expect(events.ofType("rate_limit.waited")).toEqual([]);
  });

  it("limits by estimated input tokens", async () => {
    const { harness, clock } = setup();
    const model = threeCalls();
    harness.registerModel("m", model).registerTool(FakeTool.returning("t", "ok"));
    // Size the bucket so the first call fits and the second must wait for tokens.
    const first = estimateRequestTokens({ messages: [user("hi")], tools: harness.tools.schemas() });
    harness.use(rateLimitMiddleware({ tokens: { capacity: first * 2, refillPerSecond: 10 } }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    const waited = events.ofType("rate_limit.waited");
    expect(waited.length).toBeGreaterThan(0);
    expect(waited.every((e) => e.reason === "tokens")).toBe(true);
    expect(clock.now()).toBe(waited.reduce((sum, e) => sum + e.waitedMs, 0));
  });

  it("fails fast when a request can never fit the token bucket, even in wait mode", async () => {
    const { harness, clock } = setup();
    const model = new ScriptedModel(["unused"]);
    harness
      .registerModel("m", model)
      .use(rateLimitMiddleware({ tokens: { capacity: 3, refillPerSecond: 100 } }));
    const { error } = await runAgent(harness, "a prompt that is clearly longer than three tokens");
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.message).toContain("can never fit");
    expect(model.callCount).toBe(0);
    expect(clock.sleeps).toEqual([]);
  });

  it("rejects bad configuration at construction, naming the option", () => {
    expect(() => rateLimitMiddleware({})).toThrow(expect.objectContaining({ code: "validation" }));
    expect(() => rateLimitMiddleware({ requests: { capacity: -1, refillPerSecond: 1 } })).toThrow(
      expect.objectContaining({ details: { middleware: "rate_limit", option: "requests.capacity" } }),
    );
    expect(() => rateLimitMiddleware({ tokens: { capacity: 10, refillPerSecond: 0 } })).toThrow(
      /tokens\.refillPerSecond/,
    );
  });
});

describe("TokenBucket", () => {
  it("starts full, refills continuously up to capacity, and says how long to wait", () => {
    const bucket = new TokenBucket(10, 2);
    expect(bucket.available(0)).toBe(10);
    bucket.take(10, 0);
    expect(bucket.waitMs(1, 0)).toBe(500);
    expect(bucket.waitMs(4, 1_000)).toBe(1_000);
    expect(bucket.available(60_000)).toBe(10);
    expect(bucket.canEverFit(11)).toBe(false);
    expect(bucket.waitMs(11, 60_000)).toBe(Number.POSITIVE_INFINITY);
  });
});
