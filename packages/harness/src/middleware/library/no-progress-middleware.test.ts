import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runText } from "../../agent-loop/agent-run.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { runAgent, setup } from "./harness.fixture.js";
import { noProgressMiddleware } from "./no-progress-middleware.js";

const same = (name: string, args = { path: "/etc/app.conf" }) => ({ toolCalls: [{ name, arguments: args }] });

describe("noProgressMiddleware", () => {
  it("nudges after repeated identical failures, then halts with limit_exceeded", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([same("read"), same("read"), same("read"), same("read"), "unused"]);
    const read = FakeTool.failing("read", "permission denied");
    harness.registerModel("m", model).registerTool(read).use(noProgressMiddleware());
    const { error, events } = await runAgent(harness, "read the config");
    // Failures 1 and 2, then a nudge on the 3rd request; the 3rd failure halts before a 4th call.
    expect(model.callCount).toBe(3);
    expect(read.callCount).toBe(3);
    expect(text(model.requests[2]?.messages.at(-1))).toContain(
      'tool "read" failed 2 times with the same arguments',
    );
    expect(model.requests[2]?.messages.at(-1)?.role).toBe("system");
    expect(model.requests[1]?.messages.at(-1)?.role).toBe("tool");
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toMatchObject({
      limit: "no_progress",
      kind: "repeated_failure",
      value: 3,
      count: 3,
    });
    expect(events.ofType("no_progress.detected").map((e) => [e.kind, e.action, e.count])).toEqual([
      ["repeated_failure", "nudge", 2],
      ["repeated_failure", "halt", 3],
    ]);
  });

  it("a success of the same call resets its failure count; different arguments are different calls", async () => {
    const { harness } = setup();
    let calls = 0;
    const flaky = FakeTool.of("read", () => {
      if (++calls % 2 === 1) throw new Error("busy");
      return "ok";
    });
    // a: fails, then succeeds (reset); b: fails once; a: fails once more. No call failed twice in a row.
    const model = new ScriptedModel([
      same("read", { path: "a" }),
      same("read", { path: "a" }),
      same("read", { path: "b" }),
      same("read", { path: "b" }),
      same("read", { path: "a" }),
      "done",
    ]);
    harness
      .registerModel("m", model)
      .registerTool(flaky)
      .use(noProgressMiddleware({ maxRepeatedFailures: 2, maxRepeatedBatches: 10 }));
    const { run, error } = await runAgent(harness, "go");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("done");
  });

  it("halts on the identical batch of calls turn after turn, even when they succeed", async () => {
    const { harness } = setup();
    const poll = FakeTool.returning("status", "pending");
    const model = new ScriptedModel([same("status"), same("status"), same("status"), same("status")]);
    harness
      .registerModel("m", model)
      .registerTool(poll)
      .use(noProgressMiddleware({ nudge: "Stop polling." }));
    const { error, events } = await runAgent(harness, "wait for it");
    expect(model.callCount).toBe(3);
    expect(text(model.requests[2]?.messages.at(-1))).toBe("Stop polling.");
    expect(error?.details).toMatchObject({ limit: "no_progress", kind: "repeated_batch" });
    expect(events.ofType("no_progress.detected").map((e) => e.action)).toEqual(["nudge", "halt"]);
  });

  it("with nudge off, halts without a note", async () => {
    const { harness } = setup();
    const model = new ScriptedModel([same("read"), same("read"), "unused"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.failing("read", "nope"))
      .use(noProgressMiddleware({ maxRepeatedFailures: 2, nudge: false }));
    const { error, events } = await runAgent(harness, "go");
    expect(error?.code).toBe("limit_exceeded");
    expect(model.requests.every((r) => r.messages.at(-1)?.role !== "system")).toBe(true);
    expect(events.ofType("no_progress.detected").map((e) => e.action)).toEqual(["halt"]);
  });

  it("rejects limits that are not positive integers", () => {
    expect(() => noProgressMiddleware({ maxRepeatedFailures: 0 })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "no_progress", option: "maxRepeatedFailures" },
      }),
    );
    expect(() => noProgressMiddleware({ maxRepeatedBatches: 2.5 })).toThrow(/maxRepeatedBatches/);
    expect(() => noProgressMiddleware({ nudge: "" })).toThrow(/nudge/);
  });
});
