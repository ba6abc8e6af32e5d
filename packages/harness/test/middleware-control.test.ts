/**
 * Middleware mechanism beyond the basics: control requests from beforeModel / afterModel, the
 * prompt-prefix guard (`changes` declarations, `cache.layout_changed`, `protectPromptPrefix`),
 * and parallel tools under a tool wrap.
 */
import { type Middleware, runText } from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { dynamicPromptMiddleware } from "@tinyagents/harness/middleware";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { system, text, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, toolMessages } from "./helpers.js";

describe("control requested from beforeModel", () => {
  it("stopWithFinal skips the model call of THIS turn", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "never asked"]);
    let turns = 0;
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use({
        name: "gate",
        beforeModel: (ctx) => {
          if (++turns === 2) ctx.run.requestControl({ kind: "stopWithFinal", text: "enough" });
        },
      });
    const { run, error, events } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.callCount).toBe(1);
    expect(run.modelCalls).toBe(1);
    expect(runText(run)).toBe("enough");
    expect(run.stopReason).toBe("stop_with_final");
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    // The skipped turn never started a model call.
    expect(events.ofType("model.started")).toHaveLength(1);
  });

  it("interrupt skips the model call and pauses the run", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel(["never asked"]);
    harness.registerModel("m", model).use({
      name: "pause",
      beforeModel: (ctx) => ctx.run.requestControl({ kind: "interrupt", reason: "wait for input" }),
    });
    const { run, status, events } = await runCollecting(harness, "hi");
    expect(model.callCount).toBe(0);
    expect(run.stopReason).toBe("interrupted");
    expect(status.status).toBe("interrupted");
    expect(events.ofType("control.applied")).toEqual([
      { type: "control.applied", control: "interrupt", detail: "wait for input" },
    ]);
  });

  it("in a direct callModel, stopWithFinal becomes the answer without calling the model", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([]);
    harness.registerModel("m", model).use({
      name: "cached",
      beforeModel: (ctx) => ctx.run.requestControl({ kind: "stopWithFinal", text: "from cache" }),
    });
    const response = await lowerLayer(harness).callModel(undefined, { messages: [user("hi")] });
    expect(text(response.message)).toBe("from cache");
    expect(model.callCount).toBe(0);
  });
});

describe("control requested from afterModel", () => {
  it("stopWithFinal ends the run before the turn's tools run; every call is answered", async () => {
    const { harness } = makeHarness();
    const t = FakeTool.returning("t", "ok");
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t" }, { name: "t" }] }]))
      .registerTool(t)
      .use({
        name: "guard",
        afterModel: (ctx) => ctx.run.requestControl({ kind: "stopWithFinal", text: "stopped" }),
      });
    const { run, error } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(t.callCount).toBe(0);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(toolMessages(run.messages).every((m) => m.isError && text(m).startsWith("Not executed"))).toBe(
      true,
    );
    expect(runText(run)).toBe("stopped");
  });

  it("interrupt ends the run before tools run and resume runs them", async () => {
    const { harness } = makeHarness();
    const t = FakeTool.returning("t", "ok");
    let paused = false;
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "after resume"]))
      .registerTool(t)
      .use({
        name: "pause_once",
        afterModel: (ctx, response) => {
          if (!paused && response.message.toolCalls.length > 0) {
            paused = true;
            ctx.run.requestControl({ kind: "interrupt", reason: "check the call" });
          }
        },
      });
    const first = await runCollecting(harness, "hi");
    expect(t.callCount).toBe(0);
    expect(first.run.paused?.pendingToolCalls.map((c) => c.name)).toEqual(["t"]);
    const paused1 = first.run.paused;
    if (paused1 === undefined) throw new Error("expected a paused run");
    const resumed = await lowerLayer(harness).resume(undefined, undefined, paused1);
    expect(t.callCount).toBe(1);
    expect(runText(resumed)).toBe("after resume");
  });
});

describe("the prompt-prefix guard", () => {
  const editsSystem = (changes?: Middleware["changes"]): Middleware => ({
    name: "rewriter",
    ...(changes === undefined ? {} : { changes }),
    beforeModel: (_ctx, request) => ({
      ...request,
      messages: [system("a different system prompt"), ...request.messages.slice(1)],
    }),
  });

  it("reports a beforeModel change of the cacheable prefix as cache.layout_changed", async () => {
    const { harness } = makeHarness({ instructions: "be brief" });
    harness.registerModel("m", new ScriptedModel(["ok"])).use(editsSystem());
    const { error, events } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    const [changed] = events.ofType("cache.layout_changed");
    expect(changed).toMatchObject({
      type: "cache.layout_changed",
      middleware: "rewriter",
      segment: "system",
    });
    expect(changed?.before).not.toBe(changed?.after);
  });

  it("with protectPromptPrefix, an undeclared prefix change fails with validation naming the middleware", async () => {
    const { harness } = makeHarness({ instructions: "be brief", policy: { protectPromptPrefix: true } });
    const model = new ScriptedModel(["ok"]);
    harness.registerModel("m", model).use(editsSystem("tail"));
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("validation");
    expect(error?.message).toContain('"rewriter"');
    expect(error?.details).toMatchObject({ middleware: "rewriter", segment: "system" });
    expect(model.callCount).toBe(0);
    expect(events.ofType("middleware.failed").map((e) => e.name)).toEqual(["rewriter"]);
  });

  it("with protectPromptPrefix, a middleware that declares prefix changes may make them", async () => {
    const { harness } = makeHarness({ instructions: "be brief", policy: { protectPromptPrefix: true } });
    harness.registerModel("m", new ScriptedModel(["ok"])).use(editsSystem("prefix"));
    const { error, events } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(events.ofType("cache.layout_changed")).toHaveLength(1);
  });

  it("sees in-place edits of the system prompt and edits of the tool declarations", async () => {
    const { harness } = makeHarness({ instructions: "be brief" });
    let turn = 0;
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "ok"]))
      .registerTool(FakeTool.returning("t", "ok"))
      .use({
        name: "mutator",
        beforeModel: (_ctx, request) => {
          if (++turn === 1) {
            const block = request.messages[0]?.content[0];
            if (block?.type === "text") block.text += "!";
          } else {
            request.tools = [];
          }
        },
      });
    const { events } = await runCollecting(harness, "hi");
    expect(events.ofType("cache.layout_changed").map((e) => e.segment)).toEqual(["system", "tools"]);
  });

  it("appending in the volatile tail (dynamic prompt) changes nothing cacheable", async () => {
    const { harness } = makeHarness({ instructions: "be brief", policy: { protectPromptPrefix: true } });
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "ok"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use(dynamicPromptMiddleware(() => "Today is Monday."));
    const { error, events } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(events.ofType("cache.layout_changed")).toEqual([]);
    expect(model.requests.map((r) => text(r.messages.at(-1)))).toEqual([
      "Today is Monday.",
      "Today is Monday.",
    ]);
  });

  it("costs nothing without beforeModel middleware (no event, request untouched)", async () => {
    const { harness } = makeHarness({ instructions: "be brief", policy: { protectPromptPrefix: true } });
    harness.registerModel("m", new ScriptedModel(["ok"]));
    const { error, events } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(events.ofType("cache.layout_changed")).toEqual([]);
  });
});

describe("tool wraps", () => {
  it("parallel tools stay parallel with a wrapToolCall middleware registered", async () => {
    const { harness } = makeHarness();
    const slow = FakeTool.returning("slow", "ok", { delayMs: 100 });
    harness
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ name: "slow" }, { name: "slow" }, { name: "slow" }] }, "done"]),
      )
      .registerTool(slow)
      .use({ name: "passthrough", wrapToolCall: (_ctx, call, next) => next(call) });
    const { error } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(slow.callCount).toBe(3);
    expect(slow.maxConcurrent).toBe(3);
  });
});
