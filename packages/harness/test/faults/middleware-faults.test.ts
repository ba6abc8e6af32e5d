/**
 * Middleware faults: a middleware that throws in each of its hooks, and an `onError` that throws
 * itself. Documented outcome: the run fails with code `middleware` (details name the middleware
 * and the hook; a tinyagents error thrown by a hook keeps its own code), the failure is reported
 * as `middleware.failed`, every other middleware's `onError` still runs once, `run.failed` is
 * last, and the transcript keeps everything up to the failing hook.
 */
import type { Middleware } from "@tinyagents/harness";
import type { MiddlewareHook } from "@tinyagents/harness/internal";
import { FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { BOTH_PATHS, eventsOf, expectFailedRun, runFault } from "./fault-kit.js";

type AnyHook = MiddlewareHook | "onModelDelta" | "onToolDelta";

/** A middleware whose `hook` throws `new Error("<hook> exploded")`; every other hook passes. */
function throwingIn(hook: AnyHook): Middleware {
  const boom = () => {
    throw new Error(`${hook} exploded`);
  };
  const m: Middleware = { name: "faulty" };
  switch (hook) {
    case "wrapModelCall":
      return { ...m, wrapModelCall: async () => boom() };
    case "wrapToolCall":
      return { ...m, wrapToolCall: async () => boom() };
    default:
      return { ...m, [hook]: boom };
  }
}

/** Per hook: the roles of the transcript the failed run keeps, and the paths where the hook runs. */
const HOOKS: readonly { hook: AnyHook; transcript: string[]; streamingOnly?: boolean }[] = [
  { hook: "beforeAgent", transcript: ["user"] },
  { hook: "beforeModel", transcript: ["user"] },
  { hook: "wrapModelCall", transcript: ["user"] },
  { hook: "onModelDelta", transcript: ["user"], streamingOnly: true },
  { hook: "afterModel", transcript: ["user"] },
  { hook: "beforeTool", transcript: ["user", "assistant"] },
  { hook: "wrapToolCall", transcript: ["user", "assistant"] },
  { hook: "onToolDelta", transcript: ["user", "assistant"] },
  { hook: "afterTool", transcript: ["user", "assistant"] },
  { hook: "afterAgent", transcript: ["user", "assistant", "tool", "assistant"] },
];

const PER_DELTA: ReadonlySet<AnyHook> = new Set(["onModelDelta", "onToolDelta"]);

const reporting = () =>
  FakeTool.of("search", (_args, ctx) => {
    ctx.progress("searching");
    return "found";
  });

describe.each(BOTH_PATHS)("a middleware that throws (%s)", (_path, streaming) => {
  it.each(HOOKS.filter((h) => streaming || h.streamingOnly !== true).map((h) => [h.hook, h] as const))(
    "in %s fails the run with code middleware",
    async (hook, { transcript }) => {
      const cleanups: string[] = [];
      const tool = reporting();
      const result = await runFault({
        models: { scripted: new ScriptedModel([{ toolCalls: [{ name: "search" }] }, "done"]) },
        streaming,
        tools: [tool],
        middleware: [
          throwingIn(hook),
          { name: "cleanup", onError: (_ctx, error) => void cleanups.push(error.code) },
        ],
        // Retrying a middleware failure would be wrong; make sure nothing retries it.
        policy: { retry: { maxRetries: 3 } },
      });
      expectFailedRun(result, { code: "middleware", transcript });
      expect(result.error?.message).toContain(`middleware "faulty" failed in ${hook}: ${hook} exploded`);
      expect(result.error?.details).toMatchObject({ middleware: "faulty", hook });
      const failed = eventsOf(result, "middleware.failed").filter((e) => e.name === "faulty");
      // The per-delta hooks are not bracketed (they run per delta); the error names them.
      expect(failed.map((e) => e.hook)).toEqual(PER_DELTA.has(hook) ? [] : [hook]);
      // Every onError ran exactly once with the run's error.
      expect(cleanups).toEqual(["middleware"]);
      expect(eventsOf(result, "retry.scheduled")).toHaveLength(0);
      expect(eventsOf(result, "model.started").length).toBeLessThanOrEqual(2);
      if (hook === "beforeTool" || hook === "wrapToolCall") expect(tool.callCount).toBe(0);
    },
  );

  it("keeps a hook's own tinyagents error code (a guardrail-style refusal)", async () => {
    const refuse: Middleware = {
      name: "refuse",
      beforeModel: () => {
        throw new TinyAgentsError("guardrail", "not today", { details: { reason: "test" } });
      },
    };
    const result = await runFault({
      models: { scripted: new ScriptedModel(["never"]) },
      streaming,
      middleware: [refuse],
    });
    expectFailedRun(result, { code: "guardrail", transcript: ["user"] });
    expect(eventsOf(result, "middleware.failed")[0]?.error.code).toBe("guardrail");
  });

  it("an onError that throws is reported and swallowed: the run's own error wins", async () => {
    const seen: string[] = [];
    const result = await runFault({
      models: { scripted: new ScriptedModel([new Error("provider exploded")]) },
      streaming,
      middleware: [
        { name: "first_cleanup", onError: () => void seen.push("first") },
        {
          name: "throwing_cleanup",
          onError: () => {
            seen.push("throwing");
            throw new Error("cleanup failed too");
          },
        },
        { name: "late_cleanup", onError: () => void seen.push("late") },
      ],
    });
    expectFailedRun(result, { code: "provider", transcript: ["user"] });
    expect(result.error?.message).toContain("provider exploded");
    expect(seen).toEqual(["first", "throwing", "late"]);
    const failed = eventsOf(result, "middleware.failed").filter((e) => e.hook === "onError");
    expect(failed.map((e) => [e.name, e.hook])).toEqual([["throwing_cleanup", "onError"]]);
    expect(failed[0]?.error.message).toContain("cleanup failed too");
  });
});
