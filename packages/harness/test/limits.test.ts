import { AgentHarness, runText } from "@tinyagents/harness";
import {
  DEFAULT_CLOCK_START,
  DeterministicClock,
  DeterministicIds,
  FakeTool,
  runScript,
  type ScriptStep,
  SlowModel,
} from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, toolMessages } from "./helpers.js";

/** `n` turns that each ask for one `ping` call. */
const pings = (n: number): ScriptStep[] =>
  Array.from({ length: n }, (_, i) => ({ toolCalls: [{ name: "ping", arguments: { i } }] }));

describe("model-call cap", () => {
  it.each([1, 3])(
    "maxModelCalls %i allows exactly that many calls; the next fails limit_exceeded",
    async (n) => {
      const ping = FakeTool.returning("ping", "pong");
      const { run, error, events, model, status } = await runScript({
        script: pings(n),
        tools: [ping],
        policy: { limits: { maxModelCalls: n } },
      });

      expect(model.callCount).toBe(n);
      expect(run.modelCalls).toBe(n);
      expect(ping.callCount).toBe(n);
      expect(error?.code).toBe("limit_exceeded");
      expect(error?.details).toEqual({ limit: "model_calls", value: n, count: n + 1 });
      expect(events.ofType("limit.reached")).toEqual([
        { type: "limit.reached", limit: "model_calls", value: n, count: n + 1 },
      ]);
      const types = events.types();
      expect(types.indexOf("limit.reached")).toBeLessThan(types.indexOf("run.failed"));
      expect(types.at(-1)).toBe("run.failed");
      expect(status.status).toBe("failed");
      expect(status.modelCalls).toBe(n);
      // The partial transcript is kept: every turn and every tool result.
      expect(run.messages).toHaveLength(1 + 2 * n);
    },
  );

  it("a run's limits.maxModelCalls overrides the harness limit for one run", async () => {
    const { run, error } = await runScript({
      script: pings(2),
      tools: [FakeTool.returning("ping", "pong")],
      policy: { limits: { maxModelCalls: 10 } },
      runOptions: { limits: { maxModelCalls: 2 } },
    });
    expect(run.modelCalls).toBe(2);
    expect(error?.details).toEqual({ limit: "model_calls", value: 2, count: 3 });
  });

  it("a run needing exactly maxModelCalls calls completes", async () => {
    const { run, error, events } = await runScript({
      script: [...pings(2), "done"],
      tools: [FakeTool.returning("ping", "pong")],
      policy: { limits: { maxModelCalls: 3 } },
    });
    expect(error).toBeUndefined();
    expect(run.modelCalls).toBe(3);
    expect(events.ofType("limit.reached")).toEqual([]);
  });

  it('onCap "stopWithPartial" returns the partial run with stopReason', async () => {
    const { run, error, events, status, model } = await runScript({
      script: pings(2),
      tools: [FakeTool.returning("ping", "pong")],
      policy: { limits: { maxModelCalls: 2, onCap: "stopWithPartial" } },
    });

    expect(error).toBeUndefined();
    expect(run.stopReason).toBe("limit:model_calls");
    expect(run.modelCalls).toBe(2);
    expect(model.callCount).toBe(2);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "model_calls", value: 2, count: 3 },
    ]);
    expect(events.types().at(-1)).toBe("run.completed");
    expect(status.status).toBe("completed");
  });
});

describe("tool-call cap", () => {
  it("maxToolCalls N allows exactly N calls across turns; the next fails limit_exceeded", async () => {
    const ping = FakeTool.returning("ping", "pong");
    const { run, error, events, model } = await runScript({
      script: pings(3),
      tools: [ping],
      policy: { limits: { maxToolCalls: 2 } },
    });

    expect(ping.callCount).toBe(2);
    expect(run.toolCalls).toBe(2);
    expect(model.callCount).toBe(3);
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toEqual({ limit: "tool_calls", value: 2, count: 3 });
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls", value: 2, count: 3 },
    ]);
    expect(events.types().at(-1)).toBe("run.failed");
  });

  it("counts every call of one turn against the cap (fail closed: nothing of that turn runs)", async () => {
    const ping = FakeTool.returning("ping", "pong");
    const { error, run } = await runScript({
      script: [{ toolCalls: [{ name: "ping" }, { name: "ping" }, { name: "ping" }] }],
      tools: [ping],
      runOptions: { limits: { maxToolCalls: 2 } },
    });
    expect(error?.details).toEqual({ limit: "tool_calls", value: 2, count: 3 });
    expect(ping.callCount).toBe(0);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  it('onCap "stopWithPartial" runs the admitted calls, answers the rest, and stops', async () => {
    const ping = FakeTool.returning("ping", "pong");
    const { run, error, events, model } = await runScript({
      script: [
        {
          toolCalls: [
            { name: "ping", id: "a" },
            { name: "ping", id: "b" },
            { name: "ping", id: "c" },
          ],
        },
      ],
      tools: [ping],
      policy: { limits: { maxToolCalls: 2, onCap: "stopWithPartial" } },
    });

    expect(error).toBeUndefined();
    expect(run.stopReason).toBe("limit:tool_calls");
    expect(ping.callCount).toBe(2);
    expect(run.toolCalls).toBe(2);
    expect(model.callCount).toBe(1);
    // Every call is answered, so the transcript stays valid for a later turn.
    const results = toolMessages(run.messages);
    expect(results.map((m) => [m.toolCallId, m.isError])).toEqual([
      ["a", false],
      ["b", false],
      ["c", true],
    ]);
    expect(text(results[2])).toContain("limit");
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls", value: 2, count: 3 },
    ]);
    expect(events.types().at(-1)).toBe("run.completed");
  });

  it("recovered bad calls (unknown tools) consume tool-call slots", async () => {
    const { error, events } = await runScript({
      script: [{ toolCalls: [{ name: "nope" }] }, { toolCalls: [{ name: "nope" }] }],
      policy: { limits: { maxToolCalls: 1 } },
    });
    expect(events.ofType("tool.unknown")).toHaveLength(1);
    expect(error?.details).toEqual({ limit: "tool_calls", value: 1, count: 2 });
  });
});

describe("wall-clock deadline", () => {
  it("a model call that runs past RunConfig.timeoutMs is cut at the deadline (virtual time)", async () => {
    const clock = new DeterministicClock();
    const { harness } = makeHarness({ clock });
    const slow = new SlowModel({ delayMs: 500, reply: "too late" });
    harness.registerModel("slow", slow);

    const { run, error, events, status } = await runCollecting(harness, "hi", { timeoutMs: 100 });

    // The deadline timer runs on the virtual clock: the call is aborted at 100 ms, not at 500.
    expect(slow.completed).toBe(0);
    expect(clock.now() - DEFAULT_CLOCK_START).toBe(100);
    expect(error?.code).toBe("timeout");
    expect(error?.details).toMatchObject({ limit: "wall_clock", value: 100 });
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "wall_clock", value: 100, count: 100 },
    ]);
    expect(events.types().at(-1)).toBe("run.failed");
    expect(status.status).toBe("failed");
    expect(run.stopReason).toBe("timeout");
    expect(run.messages.map((m) => m.role)).toEqual(["user"]);
  });

  it("a run that finishes inside the deadline completes", async () => {
    const { harness } = makeHarness();
    harness.registerModel("slow", new SlowModel({ delayMs: 99, reply: "in time" }));
    const { run, error } = await runCollecting(harness, "hi", { timeoutMs: 100 });
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("in time");
  });

  it("the deadline stops the loop at the next turn when tools use up the time", async () => {
    const slowTool = FakeTool.returning("slow_tool", "ok", { delayMs: 1_000 });
    const { error, model, events } = await runScript({
      script: [{ toolCalls: [{ name: "slow_tool" }] }, "never"],
      tools: [slowTool],
      policy: { limits: { maxWallClockMs: 500 } },
    });
    expect(error?.code).toBe("timeout");
    expect(model.callCount).toBe(1);
    expect(slowTool.callCount).toBe(1);
    expect(events.ofType("limit.reached")[0]).toMatchObject({ limit: "wall_clock", value: 500 });
  });

  it("with the system clock a real timer cancels the in-flight model call at the deadline", async () => {
    const harness = new AgentHarness({ ids: new DeterministicIds() });
    const slow = new SlowModel({ delayMs: 10_000 });
    harness.registerModel("slow", slow);
    const started = Date.now();
    const { error, events, status } = await runCollecting(harness, "hi", { timeoutMs: 30 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slow.completed).toBe(0);
    expect(error?.code).toBe("timeout");
    expect(events.ofType("limit.reached")[0]).toMatchObject({ limit: "wall_clock", value: 30 });
    expect(events.types().at(-1)).toBe("run.failed");
    expect(status.status).toBe("failed");
  });

  it("the stricter of RunConfig.timeoutMs and RunLimits.maxWallClockMs applies", async () => {
    const { harness } = makeHarness({ policy: { limits: { maxWallClockMs: 1_000 } } });
    harness.registerModel("slow", new SlowModel({ delayMs: 300 }));
    const { error } = await runCollecting(harness, "hi", { timeoutMs: 200 });
    expect(error?.details).toMatchObject({ limit: "wall_clock", value: 200 });
  });
});
