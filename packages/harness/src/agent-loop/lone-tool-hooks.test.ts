import { text } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { runAgent, setup } from "../middleware/library/harness.fixture.js";
import type { Middleware } from "../middleware/middleware.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";

// A lone tool call in process folds its result in the reaction that produced it, also when a
// middleware has tool hooks (`afterTool`): these pin what that path must keep — the hook's
// replacement reaches the transcript and the next request, its bracket follows the tool's
// events, and a failing hook fails the run with a middleware error naming it — for a tool that
// answers synchronously and one that answers with a promise, and a sync and an async hook.

const echo = (sync: boolean) =>
  tool({
    name: "echo",
    description: "echoes v",
    inputSchema: { type: "object", properties: { v: { type: "string" } } },
    execute: sync ? (args) => `echo:${String(args.v)}` : async (args) => `echo:${String(args.v)}`,
  });

const suffixing = (async: boolean): Middleware => ({
  name: "suffix",
  afterTool: (_ctx, result) => {
    const first = result.content[0];
    const edited = {
      ...result,
      content: [{ type: "text" as const, text: `${first?.type === "text" ? first.text : ""}!` }],
    };
    return async ? Promise.resolve(edited) : edited;
  },
});

describe("a lone tool call with an afterTool hook", () => {
  for (const syncTool of [true, false])
    for (const asyncHook of [false, true])
      it(`${syncTool ? "sync" : "async"} tool, ${asyncHook ? "async" : "sync"} hook: the hook's result is what the model sees next`, async () => {
        const { harness } = setup();
        const model = new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: { v: "x" } }] }, "done"]);
        harness.registerModel("m", model).registerTool(echo(syncTool)).use(suffixing(asyncHook));
        const ran = await runAgent(harness, "hi");
        expect(ran.error).toBeUndefined();
        const sent = model.requests[1]?.messages.at(-1);
        expect(sent?.role).toBe("tool");
        expect(text(sent)).toBe("echo:x!");
        const types = ran.events.types();
        const completed = types.indexOf("tool.completed");
        const hookStart = ran.events.events.findIndex(
          (e) => e.type === "middleware.started" && e.hook === "afterTool",
        );
        expect(completed).toBeGreaterThan(-1);
        expect(hookStart).toBeGreaterThan(completed);
        expect(types.at(-1)).toBe("run.completed");
      });

  for (const syncTool of [true, false])
    it(`${syncTool ? "sync" : "async"} tool: a throwing afterTool fails the run with a middleware error naming it`, async () => {
      const { harness } = setup();
      const model = new ScriptedModel([{ toolCalls: [{ name: "echo", arguments: { v: "x" } }] }, "done"]);
      const throwing: Middleware = {
        name: "boom",
        afterTool: () => {
          throw new Error("no");
        },
      };
      harness.registerModel("m", model).registerTool(echo(syncTool)).use(throwing);
      const ran = await runAgent(harness, "hi");
      expect(ran.error?.code).toBe("middleware");
      expect(ran.error?.details).toEqual({ middleware: "boom", hook: "afterTool" });
      expect(model.requests).toHaveLength(1);
      expect(ran.events.ofType("middleware.failed")).toHaveLength(1);
      expect(ran.events.ofType("tool.completed")).toHaveLength(1);
      expect(ran.events.types().at(-1)).toBe("run.failed");
    });
});
