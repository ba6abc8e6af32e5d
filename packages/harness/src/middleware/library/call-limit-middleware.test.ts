import { ProviderError, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { toolMessages } from "../../../test/helpers.js";
import { runText } from "../../agent-loop/agent-run.js";
import { lowerLayer } from "../../runtime/lower-layer.js";
import { FakeTool } from "../../testkit/fake-tool.js";
import { ScriptedModel } from "../../testkit/scripted-model.js";
import { ToolRegistry } from "../../tool/tool-registry.js";
import type { Middleware } from "../middleware.js";
import { modelCallLimitMiddleware, toolCallLimitMiddleware } from "./call-limit-middleware.js";
import { runAgent, setup } from "./harness.fixture.js";
import { retryMiddleware } from "./retry-middleware.js";

const threeCalls = () =>
  new ScriptedModel([{ toolCalls: [{ name: "t" }] }, { toolCalls: [{ name: "t" }] }, "done"]);

describe("modelCallLimitMiddleware", () => {
  it("fails the call past the cap with limit_exceeded (the call is not made)", async () => {
    const { harness } = setup();
    const model = threeCalls();
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(modelCallLimitMiddleware({ runLimit: 2 }));
    const { error, events } = await runAgent(harness, "hi");
    expect(model.callCount).toBe(2);
    expect(error?.code).toBe("limit_exceeded");
    expect(error?.details).toMatchObject({
      limit: "model_calls",
      value: 2,
      count: 3,
      middleware: "model_call_limit",
    });
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "model_calls", value: 2, count: 3 },
    ]);
  });

  it("behavior end stops the run with a final message instead", async () => {
    const { harness } = setup();
    const model = threeCalls();
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(modelCallLimitMiddleware({ runLimit: 2, behavior: "end", message: "Out of steps." }));
    const { run, error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.callCount).toBe(2);
    expect(run.stopReason).toBe("stop_with_final");
    expect(runText(run)).toBe("Out of steps.");
  });

  it("does not charge a call that a later beforeModel skips (pause, then resume)", async () => {
    const { harness } = setup();
    const model = new ScriptedModel(["done"]);
    let pause = true;
    const gate: Middleware = {
      name: "gate",
      beforeModel(ctx) {
        if (pause) ctx.run.requestControl({ kind: "interrupt", reason: "wait" });
      },
    };
    harness
      .registerModel("m", model)
      .use(modelCallLimitMiddleware({ runLimit: 1 }))
      .use(gate);
    const first = await runAgent(harness, "hi");
    expect(first.run.stopReason).toBe("interrupted");
    expect(model.callCount).toBe(0);
    expect(first.run.paused?.middlewareState?.model_call_limit).toEqual({ calls: 0 });
    pause = false;
    const resumed = await lowerLayer(harness).resume(undefined, undefined, first.run.paused!);
    expect(resumed.stopReason).toBe("completed");
    expect(runText(resumed)).toBe("done");
    expect(model.callCount).toBe(1);
  });

  it("counts a call once however often a retry middleware re-runs it", async () => {
    const { harness } = setup({ policy: { retry: { maxRetries: 0 } } });
    const busy = () =>
      new ProviderError({ provider: "p", message: "busy", kind: "rate_limited", status: 429 });
    const model = new ScriptedModel([busy(), busy(), { toolCalls: [{ name: "t" }] }, "done"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(retryMiddleware({ policy: { maxRetries: 3, initialBackoffMs: 1 } }))
      .use(modelCallLimitMiddleware({ runLimit: 2 }));
    const { run, error } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(runText(run)).toBe("done");
    expect(model.callCount).toBe(4);
    expect(run.modelCalls).toBe(2);
  });

  it("counts each run separately", async () => {
    const { harness } = setup();
    harness.registerModel("m", new ScriptedModel(["a", "b"])).use(modelCallLimitMiddleware({ runLimit: 1 }));
    expect((await runAgent(harness, "one")).error).toBeUndefined();
    expect((await runAgent(harness, "two")).error).toBeUndefined();
  });

  it("rejects a negative or fractional cap at construction", () => {
    expect(() => modelCallLimitMiddleware({ runLimit: -1 })).toThrow(
      expect.objectContaining({
        code: "validation",
        details: { middleware: "model_call_limit", option: "runLimit" },
      }),
    );
    expect(() => modelCallLimitMiddleware({ runLimit: 1.5 })).toThrow(/runLimit/);
  });
});

describe("toolCallLimitMiddleware", () => {
  it("fails the tool call past the run cap", async () => {
    const { harness } = setup();
    const t = FakeTool.returning("t", "ok");
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t" }, { name: "t" }] }]))
      .registerTool(t)
      .use(toolCallLimitMiddleware({ runLimit: 1 }));
    const { error, events } = await runAgent(harness, "hi");
    expect(error?.code).toBe("limit_exceeded");
    expect(t.callCount).toBe(0);
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls", value: 1, count: 2 },
    ]);
  });

  it("per tool name, answering refused calls so the model can go on", async () => {
    const { harness } = setup();
    const search = FakeTool.returning("search", "found");
    const other = FakeTool.returning("other", "fine");
    harness
      .registerModel(
        "m",
        new ScriptedModel([
          { toolCalls: [{ name: "search" }, { name: "search" }, { name: "other" }] },
          "done",
        ]),
      )
      .registerTool(search)
      .registerTool(other)
      .use(toolCallLimitMiddleware({ perTool: { search: 1 }, behavior: "returnError" }));
    const { run, error, events } = await runAgent(harness, "hi");
    expect(error).toBeUndefined();
    expect(search.callCount).toBe(1);
    expect(other.callCount).toBe(1);
    const messages = toolMessages(run.messages);
    expect(messages.map((m) => m.isError)).toEqual([false, true, false]);
    expect(text(messages[1])).toContain("tool_calls:search");
    expect(events.ofType("limit.reached")).toEqual([
      { type: "limit.reached", limit: "tool_calls:search", value: 1, count: 2 },
    ]);
  });

  it("rejects bad caps and unregistered names at construction", () => {
    expect(() => toolCallLimitMiddleware({})).toThrow(expect.objectContaining({ code: "validation" }));
    expect(() => toolCallLimitMiddleware({ perTool: { search: -1 } })).toThrow(
      expect.objectContaining({ details: { middleware: "tool_call_limit", option: "perTool.search" } }),
    );
    const registry = new ToolRegistry([FakeTool.returning("search", "ok")]);
    expect(() => toolCallLimitMiddleware({ perTool: { serch: 1 }, registry })).toThrow(/serch/);
  });
});
