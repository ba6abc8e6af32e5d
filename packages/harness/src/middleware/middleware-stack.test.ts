import { assistant, type ModelRequest, system, TinyAgentsError, user } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { RunContext } from "../contracts/run-context.js";
import type { ToolResult } from "../tool/tool.js";
import { budgetMiddleware } from "./library/budget-middleware.js";
import { modelCallLimitMiddleware } from "./library/call-limit-middleware.js";
import { redactionMiddleware } from "./library/redaction-middleware.js";
import type { HookContext, Middleware } from "./middleware.js";
import { MiddlewareStack } from "./middleware-stack.js";
import { replacesRequestOnly } from "./read-only-hooks.js";

/** A hook context whose run records what the stack emits. */
function context(): { ctx: HookContext<unknown, unknown>; events: AgentEvent[] } {
  const events: AgentEvent[] = [];
  const run = { emit: (event: AgentEvent) => events.push(event) } as unknown as RunContext<unknown>;
  return { ctx: { state: undefined, run }, events };
}

const result: ToolResult = {
  callId: "c1",
  toolName: "t",
  content: [{ type: "text", text: "raw" }],
  isError: false,
  elapsedMs: 0,
};

/** An `afterTool` middleware appending `tag` to the result text, synchronously or not. */
function tagger(name: string, tag: string, async = false): Middleware {
  const edit = (r: ToolResult): ToolResult => ({
    ...r,
    content: [{ type: "text", text: `${(r.content[0] as { text: string }).text}+${tag}` }],
  });
  return { name, afterTool: async ? async (_ctx, r) => edit(r) : (_ctx, r) => edit(r) };
}

const text = (r: ToolResult) => (r.content[0] as { text: string }).text;
const brackets = (events: AgentEvent[]) =>
  events.map((e) => ("name" in e && "hook" in e ? `${e.type} ${e.name}` : e.type));

describe("MiddlewareStack dispatch", () => {
  it("synchronous hooks answer without a promise, in reverse order for after* hooks, each bracketed", () => {
    const { ctx, events } = context();
    const stack = new MiddlewareStack([tagger("a", "A"), tagger("b", "B")]);
    const out = stack.runValueHook(ctx, "afterTool", result);
    expect(out).not.toBeInstanceOf(Promise);
    expect(text(out as ToolResult)).toBe("raw+B+A");
    expect(brackets(events)).toEqual([
      "middleware.started b",
      "middleware.completed b",
      "middleware.started a",
      "middleware.completed a",
    ]);
  });

  it("turns asynchronous at the first async hook and keeps the order and the values", async () => {
    const { ctx, events } = context();
    const stack = new MiddlewareStack([tagger("a", "A"), tagger("b", "B", true), tagger("c", "C")]);
    const out = stack.runValueHook(ctx, "afterTool", result);
    expect(out).toBeInstanceOf(Promise);
    expect(text(await out)).toBe("raw+C+B+A");
    expect(brackets(events)).toEqual([
      "middleware.started c",
      "middleware.completed c",
      "middleware.started b",
      "middleware.completed b",
      "middleware.started a",
      "middleware.completed a",
    ]);
  });

  it("a hook that throws synchronously fails as a rejected promise, after its middleware.failed", async () => {
    const { ctx, events } = context();
    const stack = new MiddlewareStack([
      {
        name: "broken",
        afterTool: () => {
          throw new Error("boom");
        },
      },
    ]);
    const out = stack.runValueHook(ctx, "afterTool", result);
    expect(out).toBeInstanceOf(Promise);
    const error = await Promise.resolve(out).catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "middleware")).toBe(true);
    expect((error as TinyAgentsError).details).toMatchObject({ middleware: "broken", hook: "afterTool" });
    expect(brackets(events)).toEqual(["middleware.started broken", "middleware.failed broken"]);
  });

  it("beforeModel: synchronous hooks answer without a promise and prefix changes are still watched", async () => {
    const request: ModelRequest = { messages: [system("sys"), user("q")] };
    const rewrite: Middleware = {
      name: "rewrite",
      changes: "tail",
      beforeModel: (_ctx, r) => ({ ...r, messages: [system("other"), ...r.messages.slice(1)] }),
    };
    const reader: Middleware = { name: "reader", beforeModel: () => undefined };

    const open = context();
    const out = new MiddlewareStack([reader, rewrite]).beforeModel(open.ctx, request, false);
    expect(out).not.toBeInstanceOf(Promise);
    expect((out as ModelRequest).messages[0]).toEqual(system("other"));
    expect(open.events.map((e) => e.type)).toContain("cache.layout_changed");

    const guarded = context();
    const refused = new MiddlewareStack([reader, rewrite]).beforeModel(guarded.ctx, request, true);
    const error = await Promise.resolve(refused).catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect(brackets(guarded.events).slice(-2)).toEqual(["cache.layout_changed", "middleware.failed rewrite"]);
  });

  it("beforeModel: a read-only library hook (budget's pre-flight) costs no prefix snapshot; later hooks are still watched", () => {
    // The system message's JSON text is taken once per prefix snapshot.
    let snapshots = 0;
    const instructions = {
      ...system("be brief"),
      toJSON: () => {
        snapshots++;
        return system("be brief");
      },
    };
    const request: ModelRequest = { messages: [instructions as never, user("q")] };
    const budget = budgetMiddleware({ limits: { maxTotalTokens: 1_000 } });

    const alone = context();
    const out = new MiddlewareStack([budget]).beforeModel(alone.ctx, request, true);
    expect(out).toBe(request);
    expect(snapshots).toBe(0);
    expect(brackets(alone.events)).toEqual(["middleware.started budget", "middleware.completed budget"]);
    // The model call limit's check is marked too.
    new MiddlewareStack([modelCallLimitMiddleware({ runLimit: 5 })]).beforeModel(
      context().ctx,
      request,
      true,
    );
    expect(snapshots).toBe(0);

    const rewrite: Middleware = {
      name: "rewrite",
      changes: "prefix",
      beforeModel: (_ctx, r) => ({ ...r, messages: [system("other"), ...r.messages.slice(1)] }),
    };
    const watched = context();
    new MiddlewareStack([budget, rewrite]).beforeModel(watched.ctx, request, true);
    expect(snapshots).toBeGreaterThan(0);
    expect(watched.events.filter((e) => e.type === "cache.layout_changed")).toEqual([
      expect.objectContaining({ middleware: "rewrite", segment: "system" }),
    ]);
  });

  it("beforeModel: a copy-on-write library hook (redaction) takes a prefix snapshot only when it returns a new request", () => {
    // The system message's JSON text is taken once per prefix snapshot.
    let snapshots = 0;
    const instructions = {
      ...system("be brief"),
      toJSON: () => {
        snapshots++;
        return system("be brief");
      },
    };
    const stack = new MiddlewareStack([redactionMiddleware()]);
    const request: ModelRequest = { messages: [instructions as never, user("q")] };
    const clean = context();
    expect(stack.beforeModel(clean.ctx, request, true)).toBe(request);
    expect(snapshots).toBe(0);
    expect(brackets(clean.events)).toEqual([
      "middleware.started redaction",
      "middleware.completed redaction",
    ]);

    // A secret in the history: the redacted copy changes the prefix, which is still reported.
    const secret = user("mail me at bob@example.com");
    const withSecret: ModelRequest = {
      messages: [instructions as never, secret, assistant("ok"), user("q")],
    };
    const changed = context();
    const out = stack.beforeModel(changed.ctx, withSecret, true) as ModelRequest;
    expect(out.messages[1]).not.toBe(secret);
    expect(withSecret.messages[1]).toBe(secret);
    expect(snapshots).toBeGreaterThan(0);
    expect(changed.events.filter((e) => e.type === "cache.layout_changed")).toEqual([
      expect.objectContaining({ middleware: "redaction", segment: "history" }),
    ]);
  });

  it("beforeModel: a copy-on-write hook's failures and replacements stay inside its bracket", async () => {
    const base: ModelRequest = { messages: [system("sys"), user("q")] };
    const renamed = (r: ModelRequest): ModelRequest => ({
      ...r,
      messages: [system("other"), ...r.messages.slice(1)],
    });
    // Replacing the prefix asynchronously, undeclared, under protectPromptPrefix: refused as its failure.
    const asyncUndeclared: Middleware = {
      name: "async-cow",
      beforeModel: replacesRequestOnly(async (_ctx: unknown, r: ModelRequest) => renamed(r)),
    };
    const refused = context();
    await expect(
      new MiddlewareStack([asyncUndeclared]).beforeModel(refused.ctx, base, true),
    ).rejects.toMatchObject({
      code: "validation",
      details: { middleware: "async-cow", hook: "beforeModel" },
    });
    expect(brackets(refused.events)).toEqual([
      "middleware.started async-cow",
      "cache.layout_changed",
      "middleware.failed async-cow",
    ]);
    // Declared: the replacement is reported inside the bracket and returned.
    const declared: Middleware = { ...asyncUndeclared, name: "declared", changes: "prefix" };
    const allowed = context();
    const out = await new MiddlewareStack([declared]).beforeModel(allowed.ctx, base, true);
    expect(out.messages[0]).toEqual(system("other"));
    expect(brackets(allowed.events)).toEqual([
      "middleware.started declared",
      "cache.layout_changed",
      "middleware.completed declared",
    ]);
    // Throwing synchronously: a rejected promise, after its middleware.failed.
    const throwing: Middleware = {
      name: "throwing-cow",
      beforeModel: replacesRequestOnly((): ModelRequest => {
        throw new Error("no");
      }),
    };
    const failedRun = context();
    await expect(
      new MiddlewareStack([throwing]).beforeModel(failedRun.ctx, base, true),
    ).rejects.toMatchObject({
      code: "middleware",
      details: { middleware: "throwing-cow", hook: "beforeModel" },
    });
    expect(brackets(failedRun.events)).toEqual([
      "middleware.started throwing-cow",
      "middleware.failed throwing-cow",
    ]);
  });

  it("only the marked function is trusted: a copy of the middleware with another hook is watched", () => {
    const budget = budgetMiddleware({ limits: { maxTotalTokens: 1_000 } });
    const mine: Middleware = {
      ...budget,
      name: "mine",
      beforeModel: (_ctx, r) => {
        r.messages[0] = system("edited in place");
      },
    };
    const { ctx } = context();
    const refused = new MiddlewareStack([mine]).beforeModel(
      ctx,
      { messages: [system("sys"), user("q")] },
      true,
    );
    return expect(refused).rejects.toMatchObject({ code: "validation" });
  });

  it("beforeAgent: no promise when no middleware has the hook; otherwise each one bracketed, in order", async () => {
    const { ctx, events } = context();
    expect(
      new MiddlewareStack([budgetMiddleware({ limits: { maxTotalTokens: 10 } })]).beforeAgent(ctx),
    ).toBeUndefined();
    expect(events).toEqual([]);
    const seen: string[] = [];
    const stack = new MiddlewareStack<unknown, unknown>([
      { name: "a", beforeAgent: () => void seen.push("a") },
      budgetMiddleware({ limits: { maxTotalTokens: 10 } }),
      { name: "b", beforeAgent: async () => void seen.push("b") },
    ]);
    await stack.beforeAgent(ctx);
    expect(seen).toEqual(["a", "b"]);
    expect(brackets(events)).toEqual([
      "middleware.started a",
      "middleware.completed a",
      "middleware.started b",
      "middleware.completed b",
    ]);
  });

  it("hooksToolCalls: whether any middleware has a tool hook (the loop runs tool calls without the stack otherwise)", () => {
    const budget = budgetMiddleware({ limits: { maxTotalTokens: 10 } });
    expect(new MiddlewareStack([]).hooksToolCalls).toBe(false);
    const modelOnly = new MiddlewareStack([budget, modelCallLimitMiddleware({ runLimit: 3 })]);
    expect(modelOnly.hooksToolCalls).toBe(false);
    for (const hook of ["beforeTool", "wrapToolCall", "afterTool"] as const) {
      const tooling: Middleware<unknown, unknown> = { name: hook, [hook]: () => undefined };
      expect(new MiddlewareStack([budget, tooling]).hooksToolCalls).toBe(true);
    }
  });
});
