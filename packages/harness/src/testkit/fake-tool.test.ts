import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { RunContext } from "../contracts/run-context.js";
import type { ToolExecutionContext } from "../tool/tool.js";
import { DeterministicClock } from "./deterministic-clock.js";
import { FakeTool } from "./fake-tool.js";

/**
 * FakeTool only reads `ctx.run.clock`, so the run context is a stand-in: the real RunContext is
 * being built concurrently and its constructor inputs may still change.
 */
function toolContext(
  callId: string,
  clock: DeterministicClock,
  signal = new AbortController().signal,
): ToolExecutionContext {
  const run = { clock, signal } as unknown as RunContext;
  return { state: undefined, run, callId, signal, progress: () => {} };
}

describe("FakeTool", () => {
  it("returning answers with a copy of the output and records calls", async () => {
    const clock = new DeterministicClock();
    const output = { temp: 21 };
    const tool = FakeTool.returning("weather", output);
    const args = { city: "Oslo" };
    const result = await tool.execute(args, toolContext("call-1", clock));
    expect(result).toEqual(output);
    expect(result).not.toBe(output);
    args.city = "Bergen";
    await tool.execute({ city: "Rome" }, toolContext("call-2", clock));
    expect(tool.calls).toEqual([
      { arguments: { city: "Oslo" }, callId: "call-1" },
      { arguments: { city: "Rome" }, callId: "call-2" },
    ]);
    expect(tool.callCount).toBe(2);
    expect(tool.argsLog).toEqual([{ city: "Oslo" }, { city: "Rome" }]);
    expect(tool.parameters).toEqual({ type: "object" });
    expect(tool.description).toContain("weather");
  });

  it("failing throws a plain Error with the message", async () => {
    const tool = FakeTool.failing("explode", "kaboom");
    await expect(tool.execute({}, toolContext("c", new DeterministicClock()))).rejects.toThrow("kaboom");
    expect(tool.callCount).toBe(1);
    expect(tool.running).toBe(0);
  });

  it("hanging never settles until aborted, then rejects with cancelled", async () => {
    const controller = new AbortController();
    const tool = FakeTool.hanging("wait_forever");
    const pending = tool.execute({}, toolContext("c", new DeterministicClock(), controller.signal));
    let settled = false;
    void pending.then(
      () => {
        settled = true;
      },
      () => {
        settled = true;
      },
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(tool.running).toBe(0);
  });

  it("ignoringAbort finishes after its delay even when aborted", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const controller = new AbortController();
    const tool = FakeTool.ignoringAbort("stubborn", 500);
    const pending = tool.execute({}, toolContext("c", clock, controller.signal));
    controller.abort();
    await expect(pending).resolves.toBe("finished after 500 ms");
    expect(clock.now()).toBe(500);
  });

  it("of runs the given function with the arguments and context", async () => {
    const tool = FakeTool.of("add", (args, ctx) => `${Number(args.a) + Number(args.b)} for ${ctx.callId}`);
    await expect(tool.execute({ a: 2, b: 3 }, toolContext("call-7", new DeterministicClock()))).resolves.toBe(
      "5 for call-7",
    );
  });

  it("delays through the run clock and tracks the highest concurrency", async () => {
    const clock = new DeterministicClock({ start: 0 });
    const tool = FakeTool.returning("slow", "ok", { delayMs: 100 });
    await Promise.all([1, 2, 3].map((n) => tool.execute({ n }, toolContext(`c-${n}`, clock))));
    expect(tool.maxConcurrent).toBe(3);
    expect(clock.now()).toBe(100);
    await tool.execute({}, toolContext("c-4", clock));
    expect(tool.maxConcurrent).toBe(3);
    expect(clock.now()).toBe(200);
    tool.reset();
    expect(tool.calls).toEqual([]);
    expect(tool.maxConcurrent).toBe(0);
  });

  it("aborting during the delay rejects with cancelled and skips the handler", async () => {
    const clock = new DeterministicClock({ start: 0, autoAdvance: false });
    const controller = new AbortController();
    let ran = false;
    const tool = FakeTool.of(
      "slow",
      () => {
        ran = true;
        return "ok";
      },
      { delayMs: 1000 },
    );
    const pending = tool.execute({}, toolContext("c", clock, controller.signal));
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
    expect(ran).toBe(false);
  });

  it("validates the schema's required keys, or uses a custom validator", () => {
    const tool = FakeTool.returning("search", "ok", {
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      description: "Search things.",
      timeout: { ms: 50 },
      errorPolicy: "fail",
    });
    expect(tool.validate({ q: "x" })).toEqual({ ok: true, value: { q: "x" } });
    expect(tool.validate({})).toEqual({ ok: false, issues: ['missing required property "q"'] });
    expect(tool.timeout).toEqual({ ms: 50 });
    expect(tool.errorPolicy).toBe("fail");
    const strict = FakeTool.returning("t", "ok", { validate: () => ({ ok: false, issues: ["nope"] }) });
    expect(strict.validate({})).toEqual({ ok: false, issues: ["nope"] });
    expect(FakeTool.returning("any", 1).validate({ anything: [1, 2] }).ok).toBe(true);
  });
});
