import {
  assistant,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { RunContext } from "../contracts/run-context.js";
import type { HookContext, Middleware } from "./middleware.js";
import { MiddlewareStack } from "./middleware-stack.js";
import { type ModelCallAround, modelCallAroundOf, wrapsModelCallAround } from "./model-call-around.js";

// A `wrapModelCall` built with `wrapsModelCallAround` runs in its split form inside the stack
// (no promise layer of its own); it must behave exactly as the hook does when called directly:
// the same events in the same order, the same errors, `settled` / `failed` exactly once.

/** A hook context whose run records what the stack and the hooks emit. */
function context(): { ctx: HookContext<unknown, unknown>; events: string[] } {
  const events: string[] = [];
  const run = {
    emit: (event: AgentEvent) =>
      events.push("name" in event && "hook" in event ? `${event.type} ${event.name}` : event.type),
  } as unknown as RunContext<unknown>;
  return { ctx: { state: undefined, run, callId: "call-1" }, events };
}

const request: ModelRequest = { messages: [user("hi")] };
const response: ModelResponse = { message: assistant("ok"), finishReason: "stop" };

/** An around that records its calls, emitting one event on dispatch and one on settlement. */
function recording(options: { dispatchThrows?: boolean; settleThrows?: boolean } = {}) {
  const seen: string[] = [];
  const around: ModelCallAround<{ n: number }> = {
    dispatch(ctx, dispatched) {
      seen.push(`dispatch ${dispatched === request}`);
      if (options.dispatchThrows) throw new TinyAgentsError("limit_exceeded", "no room");
      ctx.run.emit({ type: "budget.reserved", callId: ctx.callId ?? "", estimatedInputTokens: 1 });
      return { n: 1 };
    },
    settled(ctx, call, settledWith) {
      seen.push(`settled ${call.n} ${settledWith === response}`);
      if (options.settleThrows) throw new Error("settle broke");
      ctx.run.emit({
        type: "budget.reconciled",
        callId: ctx.callId ?? "",
        estimatedInputTokens: 1,
        actualInputTokens: 1,
      });
    },
    failed(_ctx, call, error) {
      seen.push(`failed ${call.n} ${(error as Error).message}`);
    },
  };
  const middleware: Middleware = { name: "split", wrapModelCall: wrapsModelCallAround(around) };
  return { middleware, seen };
}

/** Through the stack, or the hook called directly under a stack-like bracket of its own. */
const ways = {
  "through the stack": (
    m: Middleware,
    ctx: HookContext<unknown, unknown>,
    inner: () => Promise<ModelResponse>,
  ) => new MiddlewareStack([m]).wrapModel(ctx, inner)(request),
  "called directly": (
    m: Middleware,
    ctx: HookContext<unknown, unknown>,
    inner: () => Promise<ModelResponse>,
  ) => (m.wrapModelCall as NonNullable<Middleware["wrapModelCall"]>)(ctx, request, inner),
};

describe("wrapsModelCallAround", () => {
  it("marks the hook with its split form (and nothing else)", () => {
    const { middleware } = recording();
    expect(modelCallAroundOf(middleware.wrapModelCall)).toBeDefined();
    expect(
      modelCallAroundOf((_c: unknown, r: ModelRequest, n: (r: ModelRequest) => unknown) => n(r)),
    ).toBeUndefined();
  });

  for (const [way, call] of Object.entries(ways)) {
    it(`${way}: dispatch, the call, then settled, each once, and the response returned`, async () => {
      const { ctx, events } = context();
      const { middleware, seen } = recording();
      const out = await call(middleware, ctx, () => Promise.resolve(response));
      expect(out).toBe(response);
      expect(seen).toEqual(["dispatch true", "settled 1 true"]);
      const own = ["budget.reserved", "budget.reconciled"];
      expect(way === "through the stack" ? events : events.filter((e) => own.includes(e))).toEqual(
        way === "through the stack"
          ? ["middleware.started split", ...own, "middleware.completed split"]
          : own,
      );
    });

    it(`${way}: a failing call is reported to failed (never settled) and rethrown`, async () => {
      const { ctx } = context();
      const { middleware, seen } = recording();
      await expect(call(middleware, ctx, () => Promise.reject(new Error("provider down")))).rejects.toThrow(
        "provider down",
      );
      expect(seen).toEqual(["dispatch true", "failed 1 provider down"]);
    });

    it(`${way}: a call that throws synchronously is reported to failed and rejected`, async () => {
      const { ctx } = context();
      const { middleware, seen } = recording();
      const thrown = call(middleware, ctx, () => {
        throw new Error("sync throw");
      });
      await expect(thrown).rejects.toThrow("sync throw");
      expect(seen).toEqual(["dispatch true", "failed 1 sync throw"]);
    });

    it(`${way}: dispatch throwing stops the call before it goes down, with that error`, async () => {
      const { ctx } = context();
      const { middleware, seen } = recording({ dispatchThrows: true });
      let called = false;
      const out = call(middleware, ctx, () => {
        called = true;
        return Promise.resolve(response);
      });
      await expect(out).rejects.toMatchObject({ code: "limit_exceeded" });
      expect(called).toBe(false);
      expect(seen).toEqual(["dispatch true"]);
    });
  }

  it("called directly with a next that answers a plain value: settled once, the value returned", async () => {
    const { ctx } = context();
    const { middleware, seen } = recording();
    const plainNext = (() => response) as unknown as (r: ModelRequest) => Promise<ModelResponse>;
    const hook = middleware.wrapModelCall as NonNullable<Middleware["wrapModelCall"]>;
    await expect(hook(ctx, request, plainNext)).resolves.toBe(response);
    expect(seen).toEqual(["dispatch true", "settled 1 true"]);
  });

  it("through the stack, failures close the bracket with middleware.failed and a middleware error", async () => {
    for (const [options, inner, message] of [
      [{ settleThrows: true }, () => Promise.resolve(response), "settle broke"],
      [{}, () => Promise.reject(new Error("provider down")), "provider down"],
    ] as const) {
      const { ctx, events } = context();
      const { middleware } = recording(options);
      const out = new MiddlewareStack([middleware]).wrapModel(ctx, inner)(request);
      await expect(out).rejects.toMatchObject({
        code: "middleware",
        details: { middleware: "split", hook: "wrapModelCall" },
      });
      await expect(out).rejects.toThrow(message);
      expect(events.at(0)).toBe("middleware.started split");
      expect(events.at(-1)).toBe("middleware.failed split");
      expect(events).not.toContain("middleware.completed split");
    }
    const { ctx, events } = context();
    const { middleware } = recording({ dispatchThrows: true });
    await expect(
      new MiddlewareStack([middleware]).wrapModel(ctx, () => Promise.resolve(response))(request),
    ).rejects.toMatchObject({ code: "limit_exceeded" });
    expect(events).toEqual(["middleware.started split", "middleware.failed split"]);
  });

  it("through the stack, settles and closes the bracket in the first reaction to the call below it", async () => {
    const { ctx, events } = context();
    const { middleware, seen } = recording();
    const out = new MiddlewareStack([middleware]).wrapModel(ctx, () => Promise.resolve(response))(request);
    expect(seen).toEqual(["dispatch true"]);
    // One microtask turn: the hook's own `.then` under the stack's would need two.
    await Promise.resolve();
    expect(seen).toEqual(["dispatch true", "settled 1 true"]);
    expect(events.at(-1)).toBe("middleware.completed split");
    expect(await out).toBe(response);
  });

  it("nests with an ordinary wrap hook in registration order (first registered outermost)", async () => {
    const { ctx, events } = context();
    const { middleware, seen } = recording();
    const outer: Middleware = {
      name: "outer",
      wrapModelCall: async (_ctx, r, next) => {
        seen.push("outer>");
        const out = await next(r);
        seen.push("outer<");
        return out;
      },
    };
    await new MiddlewareStack([outer, middleware]).wrapModel(ctx, () => Promise.resolve(response))(request);
    expect(seen).toEqual(["outer>", "dispatch true", "settled 1 true", "outer<"]);
    expect(events).toEqual([
      "middleware.started outer",
      "middleware.started split",
      "budget.reserved",
      "budget.reconciled",
      "middleware.completed split",
      "middleware.completed outer",
    ]);
  });
});
