import { DEFAULT_CLOCK_START, FakeTool, runScript } from "@tinyagents/harness/testkit";
import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "./helpers.js";

/** A tool that sleeps `args.ms` of clock time, then answers `done:<id>`. */
function sleeper(name = "work") {
  const completions: string[] = [];
  const tool = FakeTool.of(name, async (args, ctx) => {
    await ctx.run.clock.sleep(Number(args.ms), ctx.signal);
    completions.push(String(args.id));
    return `done:${String(args.id)}`;
  });
  return { tool, completions };
}

const calls = (specs: [string, number][]) => ({
  toolCalls: specs.map(([id, ms]) => ({ name: "work", arguments: { id, ms }, id: `c-${id}` })),
});

describe("parallel tool calls", () => {
  it("run concurrently and append results in call order, not completion order", async () => {
    const { tool, completions } = sleeper();
    const { run, error, events, clock } = await runScript({
      script: [
        calls([
          ["a", 30],
          ["b", 10],
          ["c", 20],
        ]),
        "done",
      ],
      tools: [tool],
    });

    expect(error).toBeUndefined();
    // They finished b, c, a ...
    expect(completions).toEqual(["b", "c", "a"]);
    expect(events.ofType("tool.completed").map((e) => e.callId)).toEqual(["c-b", "c-c", "c-a"]);
    // ... but the transcript answers them in the order the model asked.
    const results = toolMessages(run.messages);
    expect(results.map((m) => m.toolCallId)).toEqual(["c-a", "c-b", "c-c"]);
    expect(results.map((m) => text(m))).toEqual(["done:a", "done:b", "done:c"]);
    // All three ran at once: the turn took as long as the slowest call.
    expect(tool.maxConcurrent).toBe(3);
    expect(clock.now() - DEFAULT_CLOCK_START).toBe(30);
    expect(run.toolCalls).toBe(3);
  });

  it("respect maxConcurrency", async () => {
    const { tool } = sleeper();
    const { run, error, clock } = await runScript({
      script: [
        calls([
          ["a", 10],
          ["b", 10],
          ["c", 10],
          ["d", 10],
          ["e", 10],
        ]),
        "done",
      ],
      tools: [tool],
      policy: { limits: { maxConcurrency: 2 } },
    });

    expect(error).toBeUndefined();
    expect(tool.callCount).toBe(5);
    expect(tool.maxConcurrent).toBe(2);
    // Five 10 ms calls two at a time take three rounds.
    expect(clock.now() - DEFAULT_CLOCK_START).toBe(30);
    expect(toolMessages(run.messages).map((m) => m.toolCallId)).toEqual(["c-a", "c-b", "c-c", "c-d", "c-e"]);
  });

  it("maxConcurrency 1 runs the calls one after another, in call order", async () => {
    const { tool, completions } = sleeper();
    const { error } = await runScript({
      script: [
        calls([
          ["a", 30],
          ["b", 10],
          ["c", 20],
        ]),
        "done",
      ],
      tools: [tool],
      policy: { limits: { maxConcurrency: 1 } },
    });

    expect(error).toBeUndefined();
    expect(tool.maxConcurrent).toBe(1);
    expect(completions).toEqual(["a", "b", "c"]);
  });

  it("a failing call among parallel calls only affects its own result", async () => {
    const ok = FakeTool.returning("ok", "fine", { delayMs: 5 });
    const bad = FakeTool.failing("bad", "boom", { delayMs: 1 });
    const { run, error } = await runScript({
      script: [
        {
          toolCalls: [
            { name: "ok", id: "1" },
            { name: "bad", id: "2" },
            { name: "ok", id: "3" },
          ],
        },
        "done",
      ],
      tools: [ok, bad],
    });

    expect(error).toBeUndefined();
    expect(toolMessages(run.messages).map((m) => [m.toolCallId, m.isError])).toEqual([
      ["1", false],
      ["2", true],
      ["3", false],
    ]);
  });
  it("a call that fails the run stops the remaining calls of the turn from starting", async () => {
    const fatal = FakeTool.failing("fatal", "unrecoverable", { errorPolicy: "fail", delayMs: 1 });
    const { tool: work } = sleeper();
    const { error, events, clock } = await runScript({
      script: [
        {
          toolCalls: [
            { name: "fatal", id: "f" },
            { name: "work", arguments: { id: "a", ms: 10 }, id: "c-a" },
            { name: "work", arguments: { id: "b", ms: 10 }, id: "c-b" },
            { name: "work", arguments: { id: "c", ms: 10 }, id: "c-c" },
          ],
        },
      ],
      tools: [fatal, work],
      policy: { limits: { maxConcurrency: 2 } },
    });
    // Give any stray worker the time it would need: its 10 ms tool sleeps on the same virtual clock.
    await clock.sleep(1_000);

    expect(error?.code).toBe("tool");
    // "fatal" and "a" started together; nothing was started after the run failed.
    expect(work.argsLog.map((a) => a.id)).toEqual(["a"]);
    const types = events.types();
    expect(types.lastIndexOf("tool.started")).toBeLessThan(types.indexOf("run.failed"));
  });
});
