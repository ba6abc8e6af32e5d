import { type Middleware, runText } from "@tinyagents/harness";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { type TinyAgentsError, text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { makeHarness, runCollecting, runStreaming, toolMessages } from "./helpers.js";

/** A middleware that logs every hook it sees into `log`. */
function logging(name: string, log: string[]): Middleware {
  return {
    name,
    beforeAgent: () => {
      log.push(`${name}.beforeAgent`);
    },
    beforeModel: () => {
      log.push(`${name}.beforeModel`);
    },
    wrapModelCall: async (_ctx, request, next) => {
      log.push(`${name}.wrapModel>`);
      const response = await next(request);
      log.push(`${name}.wrapModel<`);
      return response;
    },
    afterModel: () => {
      log.push(`${name}.afterModel`);
    },
    beforeTool: () => {
      log.push(`${name}.beforeTool`);
    },
    wrapToolCall: async (_ctx, call, next) => {
      log.push(`${name}.wrapTool>`);
      const result = await next(call);
      log.push(`${name}.wrapTool<`);
      return result;
    },
    afterTool: () => {
      log.push(`${name}.afterTool`);
    },
    afterAgent: () => {
      log.push(`${name}.afterAgent`);
    },
  };
}

/** Every started middleware hook is closed by exactly one completed or failed event. */
function expectBalanced(events: { type: string; name?: string; hook?: string }[]) {
  const open = new Map<string, number>();
  for (const e of events) {
    const key = `${e.name}/${e.hook}`;
    if (e.type === "middleware.started") open.set(key, (open.get(key) ?? 0) + 1);
    if (e.type === "middleware.completed" || e.type === "middleware.failed") {
      const n = open.get(key) ?? 0;
      expect(n, `closing ${key} that was never started`).toBeGreaterThan(0);
      open.set(key, n - 1);
    }
  }
  expect([...open.values()].every((n) => n === 0)).toBe(true);
}

describe("middleware hook order", () => {
  it("before* run in order, after* in reverse, wraps form an onion outermost-first", async () => {
    const log: string[] = [];
    const { harness } = makeHarness();
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "done"]))
      .registerTool(
        FakeTool.of("t", () => {
          log.push("tool");
          return "ok";
        }),
      )
      .use(logging("A", log))
      .use(logging("B", log));

    const { error, events } = await runCollecting(harness, "hi");

    expect(error).toBeUndefined();
    const modelTurn = [
      "A.beforeModel",
      "B.beforeModel",
      "A.wrapModel>",
      "B.wrapModel>",
      "B.wrapModel<",
      "A.wrapModel<",
      "B.afterModel",
      "A.afterModel",
    ];
    expect(log).toEqual([
      "A.beforeAgent",
      "B.beforeAgent",
      ...modelTurn,
      "A.beforeTool",
      "B.beforeTool",
      "A.wrapTool>",
      "B.wrapTool>",
      "tool",
      "B.wrapTool<",
      "A.wrapTool<",
      "B.afterTool",
      "A.afterTool",
      ...modelTurn,
      "B.afterAgent",
      "A.afterAgent",
    ]);
    expectBalanced(events.events as { type: string }[]);
    // One started/completed pair per hook invocation (a wrap's "<" line is the same invocation).
    const invocations = log.filter((l) => l !== "tool" && !l.endsWith("<"));
    expect(events.ofType("middleware.started").map((e) => `${e.name}.${e.hook}`)).toHaveLength(
      invocations.length,
    );
    expect(events.ofType("middleware.completed")).toHaveLength(invocations.length);
    expect(events.ofType("middleware.failed")).toEqual([]);
  });

  it("hooks can edit requests, responses, tool calls and results", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", arguments: { v: "raw" } }] },
      "model answer",
    ]);
    const echo = FakeTool.of("echo", (args) => `echo:${String(args.v)}`);
    harness
      .registerModel("m", model)
      .registerTool(echo)
      .use({
        name: "editor",
        beforeModel: (_ctx, request) => ({ ...request, temperature: 0.1 }),
        beforeTool: (_ctx, call) => {
          call.arguments = { v: "edited" };
        },
        afterTool: (_ctx, result) => {
          const first = result.content[0];
          const body = first?.type === "text" ? first.text : "";
          return { ...result, content: [{ type: "text", text: `${body}!` }] };
        },
        afterModel: (_ctx, response) => {
          if (response.message.toolCalls.length === 0) {
            return {
              ...response,
              message: { ...response.message, content: [{ type: "text", text: "rewritten" }] },
            };
          }
        },
      });

    const { run, error } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(model.requests.map((r) => r.temperature)).toEqual([0.1, 0.1]);
    expect(echo.argsLog).toEqual([{ v: "edited" }]);
    expect(text(toolMessages(run.messages)[0])).toBe("echo:edited!");
    expect(runText(run)).toBe("rewritten");
    expect(text(run.messages.at(-1))).toBe("rewritten");
  });

  it("wrapToolCall can short-circuit (the tool never runs) and wrapModelCall can call next twice", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([{ toolCalls: [{ name: "costly" }] }, "first", "second"]);
    const costly = FakeTool.returning("costly", "expensive");
    harness
      .registerModel("m", model)
      .registerTool(costly)
      .use({
        name: "cache",
        wrapToolCall: async (_ctx, call) => ({
          callId: call.id,
          toolName: call.name,
          content: [{ type: "text", text: "cached" }],
          isError: false,
          elapsedMs: 0,
        }),
      })
      .use({
        name: "twice",
        wrapModelCall: async (_ctx, request, next) => {
          const first = await next(request);
          if (first.message.toolCalls.length > 0) return first;
          return next(request);
        },
      });
    const { run, error } = await runCollecting(harness, "hi");
    expect(error).toBeUndefined();
    expect(costly.callCount).toBe(0);
    expect(text(toolMessages(run.messages)[0])).toBe("cached");
    expect(runText(run)).toBe("second");
    expect(model.callCount).toBe(3);
  });

  it("beforeTool may not change a call's id", async () => {
    const { harness } = makeHarness();
    const t = FakeTool.returning("t", "x");
    harness
      .registerModel("m", new ScriptedModel([{ toolCalls: [{ name: "t", id: "orig" }] }]))
      .registerTool(t)
      .use({ name: "renamer", beforeTool: (_ctx, call) => ({ ...call, id: "other" }) });
    const { error } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("middleware");
    expect(error?.message).toContain('"orig"');
    expect(t.callCount).toBe(0);
  });
});

describe("onModelDelta", () => {
  it("edits reach the consumer and the final stored response", async () => {
    const { harness } = makeHarness();
    const seen: string[] = [];
    harness.registerModel("m", new ScriptedModel(["hello world"])).use({
      name: "shout",
      onModelDelta: (_ctx, delta) => {
        if (delta.type !== "text_delta") return;
        seen.push(delta.text);
        return { ...delta, text: delta.text.toUpperCase() };
      },
    });
    const { run, events, error } = await runStreaming(harness, "hi");

    expect(error).toBeUndefined();
    // ScriptedModel streams the text in two pieces.
    expect(seen).toEqual(["hello ", "world"]);
    const deltas = events.ofType("model.text_delta").map((e) => e.text);
    expect(deltas).toEqual(["HELLO ", "WORLD"]);
    expect(runText(run)).toBe("HELLO WORLD");
    expect(text(run.messages.at(-1))).toBe("HELLO WORLD");
    expect(run.finalResponse?.message).toEqual(run.messages.at(-1));
  });

  it("returning null drops the delta everywhere", async () => {
    const { harness } = makeHarness();
    harness.registerModel("m", new ScriptedModel(["keep-drop"])).use({
      name: "dropper",
      // ScriptedModel streams text in two pieces: "keep-" and "drop".
      onModelDelta: (_ctx, delta) =>
        delta.type === "text_delta" && delta.text === "drop" ? null : undefined,
    });
    const { run, events } = await runStreaming(harness, "hi");
    expect(events.ofType("model.text_delta").map((e) => e.text)).toEqual(["keep-"]);
    expect(runText(run)).toBe("keep-");
  });
});

describe("middleware failures", () => {
  it("a throwing hook fails the run with middleware, events stay balanced, onError runs once per middleware", async () => {
    const onErrors: { name: string; error: TinyAgentsError }[] = [];
    const { harness } = makeHarness();
    harness
      .registerModel("m", new ScriptedModel(["never used"]))
      .use({
        name: "outer",
        wrapModelCall: (_ctx, request, next) => next(request),
        onError: (_ctx, error) => {
          onErrors.push({ name: "outer", error });
        },
      })
      .use({
        name: "broken",
        beforeModel: () => {
          throw new Error("bad hook");
        },
        onError: (_ctx, error) => {
          onErrors.push({ name: "broken", error });
          throw new Error("onError itself fails");
        },
      })
      .use({
        name: "last",
        onError: (_ctx, error) => {
          onErrors.push({ name: "last", error });
        },
      });

    const { error, events, status } = await runCollecting(harness, "hi");

    expect(error?.code).toBe("middleware");
    expect(error?.message).toContain('"broken"');
    expect(error?.message).toContain("beforeModel");
    expect(error?.message).toContain("bad hook");
    expect(error?.details).toEqual({ middleware: "broken", hook: "beforeModel" });
    expect(onErrors.map((e) => e.name)).toEqual(["outer", "broken", "last"]);
    expect(onErrors.every((e) => e.error === error)).toBe(true);
    expectBalanced(events.events as { type: string }[]);
    const failed = events.ofType("middleware.failed").map((e) => `${e.name}/${e.hook}`);
    expect(failed).toEqual(["broken/beforeModel", "broken/onError"]);
    expect(status.status).toBe("failed");
    expect(events.ofType("run.failed")).toHaveLength(1);
  });

  it("a failure inside the model onion closes every enclosing wrap with middleware.failed", async () => {
    const { harness } = makeHarness();
    const onError: string[] = [];
    harness
      .registerModel("m", new ScriptedModel(["ok"]))
      .use({
        name: "outer",
        wrapModelCall: (_ctx, request, next) => next(request),
        onError: () => {
          onError.push("outer");
        },
      })
      .use({
        name: "inner",
        wrapModelCall: async () => {
          throw new Error("inner wrap broke");
        },
      });
    const { error, events } = await runCollecting(harness, "hi");
    expect(error?.code).toBe("middleware");
    expect(events.ofType("middleware.failed").map((e) => e.name)).toEqual(["inner", "outer"]);
    expectBalanced(events.events as { type: string }[]);
    expect(onError).toEqual(["outer"]);
  });
});

describe("control requests", () => {
  it("stopWithFinal ends the run with that text at the next checkpoint", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "never asked"]);
    harness
      .registerModel("m", model)
      .registerTool(FakeTool.returning("t", "ok"))
      .use({
        name: "guard",
        afterTool: (ctx) => {
          ctx.run.requestControl({ kind: "stopWithFinal", text: "Stopping here: budget spent." });
        },
      });
    const { run, error, events, status } = await runCollecting(harness, "hi");

    expect(error).toBeUndefined();
    expect(runText(run)).toBe("Stopping here: budget spent.");
    expect(run.stopReason).toBe("stop_with_final");
    expect(model.callCount).toBe(1);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(events.ofType("control.applied")).toEqual([
      { type: "control.applied", control: "stopWithFinal", detail: "Stopping here: budget spent." },
    ]);
    expect(events.types().at(-1)).toBe("run.completed");
    expect(status.status).toBe("completed");
  });

  it("interrupt ends the run as interrupted with a run.interrupted event", async () => {
    const { harness } = makeHarness();
    const model = new ScriptedModel([{ toolCalls: [{ name: "t" }] }, "never asked"]);
    const afterAgent: string[] = [];
    const t = FakeTool.returning("t", "ok");
    harness
      .registerModel("m", model)
      .registerTool(t)
      .use({
        name: "approval",
        afterModel: (ctx) => {
          // Interrupt outranks a stop request made earlier.
          ctx.run.requestControl({ kind: "stopWithFinal", text: "x" });
          ctx.run.requestControl({ kind: "interrupt", reason: "needs approval" });
          ctx.run.requestControl({ kind: "stopWithFinal", text: "y" });
        },
        afterAgent: () => {
          afterAgent.push("ran");
        },
      });
    const { run, error, events, status } = await runCollecting(harness, "hi");

    expect(error).toBeUndefined();
    expect(run.stopReason).toBe("interrupted");
    expect(model.callCount).toBe(1);
    expect(status.status).toBe("interrupted");
    expect(events.ofType("control.applied")).toEqual([
      { type: "control.applied", control: "interrupt", detail: "needs approval" },
    ]);
    expect(events.ofType("run.interrupted")).toHaveLength(1);
    expect(events.types().at(-1)).toBe("run.interrupted");
    expect(events.ofType("run.completed")).toEqual([]);
    expect(afterAgent).toEqual([]);
    // An interrupt from afterModel ends the run before the turn's tools run: they stay pending.
    expect(t.callCount).toBe(0);
    expect(run.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(run.paused?.pendingToolCalls.map((c) => c.name)).toEqual(["t"]);
  });
});
