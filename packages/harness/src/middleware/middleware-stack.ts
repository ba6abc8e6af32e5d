import {
  assertJsonValue,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
  TinyAgentsError,
  type ToolCall,
} from "@tinyagents/inference";
import type { ToolResult } from "../tool/tool.js";
import { runBeforeModelChain } from "./before-model-chain.js";
import { bracket, callHook } from "./hook-brackets.js";
import { hookError } from "./hook-errors.js";
import type { HookContext, Middleware, ModelCallNext, ToolCallNext } from "./middleware.js";
import { callAround, modelCallAroundOf, SoleModelCallAround } from "./model-call-around.js";

export { hookError } from "./hook-errors.js";

type ValueHook = "beforeModel" | "afterModel" | "beforeTool" | "afterTool" | "afterAgent";

/**
 * Runs middleware hooks in the documented order, bracketing each with `middleware.started` /
 * `middleware.completed` (or `middleware.failed`) events. Errors are wrapped as `middleware`
 * errors naming the middleware and hook, unless they already are tinyagents errors.
 */
export class MiddlewareStack<State, Ctx> {
  readonly list: readonly Middleware<State, Ctx>[];
  /** Middleware that implement each hook, precomputed once (hot-path friendly). */
  private readonly byHook = new Map<keyof Middleware<State, Ctx>, Middleware<State, Ctx>[]>();
  /** The `after*` hooks' chains in the order they run (reverse registration), precomputed once. */
  private readonly reversed = new Map<ValueHook, Middleware<State, Ctx>[]>();
  /** The wrap hooks innermost first (the order the onion is composed in), precomputed once. */
  private readonly innermostFirst = new Map<"wrapModelCall" | "wrapToolCall", Middleware<State, Ctx>[]>();
  /**
   * Whether any middleware hooks tool calls (`beforeTool`, `wrapToolCall`, `afterTool`): when none
   * does (budget, retry, usage accounting, ...), the loop runs a tool call as it does without
   * middleware.
   */
  readonly hooksToolCalls: boolean;
  /** {@link soleModelCallAround}, once looked up (`null`: not yet). */
  private soleAround: SoleModelCallAround | undefined | null = null;

  /**
   * Throws `validation` when two middleware that keep resumable state (`saveState` /
   * `restoreState`) share a name: a paused run's middleware state is keyed by name.
   */
  constructor(list: readonly Middleware<State, Ctx>[]) {
    this.list = list;
    const stateful = new Set<string>();
    for (const m of list) {
      if (typeof m.saveState !== "function" && typeof m.restoreState !== "function") continue;
      if (stateful.has(m.name)) {
        throw new TinyAgentsError(
          "validation",
          `two middleware named "${m.name}" keep resumable state (saveState/restoreState), which a ` +
            "paused run stores by middleware name; give each a unique `name` option",
          { details: { field: "name", middleware: m.name } },
        );
      }
      stateful.add(m.name);
    }
    this.hooksToolCalls = list.some(
      (m) =>
        typeof m.beforeTool === "function" ||
        typeof m.wrapToolCall === "function" ||
        typeof m.afterTool === "function",
    );
  }

  /**
   * Every `saveState` hook's value for the run in `ctx`, by middleware name (`undefined` values
   * left out), or `undefined` when none saved anything. Throws when a hook throws (a `middleware`
   * error naming it) or returns something that is not plain JSON (`validation`).
   */
  saveStates(ctx: HookContext<State, Ctx>): Record<string, JsonValue> | undefined {
    let saved: Record<string, JsonValue> | undefined;
    for (const m of this.with("saveState")) {
      let value: JsonValue | undefined;
      try {
        value = m.saveState?.(ctx);
        if (value !== undefined) assertJsonValue(value, `PausedRun.middlewareState.${m.name}`);
      } catch (thrown) {
        throw hookError(m.name, "saveState", thrown);
      }
      if (value === undefined) continue;
      saved ??= {};
      saved[m.name] = value;
    }
    return saved;
  }

  /**
   * Hand each middleware with a `restoreState` hook its entry of `saved` (a paused run's
   * `middlewareState`). Entries of middleware not registered here, or without the hook, are
   * ignored. Throws when a hook throws (a `middleware` error naming it, unless it threw a
   * tinyagents error).
   */
  restoreStates(ctx: HookContext<State, Ctx>, saved: Record<string, JsonValue>): void {
    for (const m of this.with("restoreState")) {
      if (!Object.hasOwn(saved, m.name)) continue;
      try {
        m.restoreState?.(ctx, structuredClone(saved[m.name] as JsonValue));
      } catch (thrown) {
        throw hookError(m.name, "restoreState", thrown);
      }
    }
  }

  /** The middleware implementing `hook`, in registration order. */
  with(hook: keyof Middleware<State, Ctx>): Middleware<State, Ctx>[] {
    let found = this.byHook.get(hook);
    if (found === undefined) {
      found = this.list.filter((m) => typeof m[hook] === "function");
      this.byHook.set(hook, found);
    }
    return found;
  }

  /**
   * The `beforeAgent` hooks in registration order, each bracketed. `undefined` (no promise, no
   * async frame) when no middleware has the hook: most stacks (budget, retry, usage accounting).
   */
  beforeAgent(ctx: HookContext<State, Ctx>): Promise<void> | undefined {
    const chain = this.with("beforeAgent");
    return chain.length === 0 ? undefined : this.beforeAgentChain(ctx, chain);
  }

  private async beforeAgentChain(
    ctx: HookContext<State, Ctx>,
    chain: Middleware<State, Ctx>[],
  ): Promise<void> {
    for (const m of chain) {
      await bracket(ctx, m, "beforeAgent", () => m.beforeAgent?.(ctx));
    }
  }

  /**
   * Run a value hook: `before*` in order, `after*` in reverse; each may edit or replace the value.
   * Returns the value itself (no promise) when no middleware implements the hook, or when every
   * hook of the chain answers synchronously (most do): a hook adds no promise or microtask turn
   * unless it is async itself. A failing hook always surfaces as a rejected promise.
   */
  runValueHook<T>(ctx: HookContext<State, Ctx>, hook: ValueHook, value: T): T | Promise<T> {
    const chain = this.ordered(hook);
    if (chain.length === 0) return value;
    return this.chainFrom(ctx, hook, chain, 0, value);
  }

  /** The middleware implementing a value hook, in the order it runs (`after*`: reversed). */
  private ordered(hook: ValueHook): Middleware<State, Ctx>[] {
    if (!hook.startsWith("after")) return this.with(hook);
    let found = this.reversed.get(hook);
    if (found === undefined) {
      found = [...this.with(hook)].reverse();
      this.reversed.set(hook, found);
    }
    return found;
  }

  /** The chain from position `start` on, synchronously until a hook returns a promise. */
  private chainFrom<T>(
    ctx: HookContext<State, Ctx>,
    hook: ValueHook,
    chain: Middleware<State, Ctx>[],
    start: number,
    value: T,
  ): T | Promise<T> {
    let current = value;
    for (let i = start; i < chain.length; i++) {
      const m = chain[i] as Middleware<State, Ctx>;
      const input = current;
      const replaced = callHook<State, Ctx, T | undefined>(ctx, m, hook, input);
      if (replaced instanceof Promise) {
        return replaced.then((out) => this.chainFrom(ctx, hook, chain, i + 1, out ?? input));
      }
      if (replaced !== undefined && replaced !== null) current = replaced;
    }
    return current;
  }

  /**
   * The `beforeModel` hooks, in registration order, watching the request's cacheable prefix:
   * when a hook changes it, `cache.layout_changed` names the middleware; with `protectPrefix`
   * a middleware that did not declare `changes: "prefix"` fails (`validation`, reported as its
   * `middleware.failed`). Returns the request itself, with no work, when no middleware has the
   * hook, and the final request without a promise when every hook answers synchronously.
   */
  beforeModel(
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
    protectPrefix: boolean,
  ): ModelRequest | Promise<ModelRequest> {
    const chain = this.with("beforeModel");
    if (chain.length === 0) return request;
    return runBeforeModelChain(ctx, chain, request, protectPrefix);
  }

  /** Compose the model-call onion around `inner` (first registered = outermost). */
  wrapModel(ctx: HookContext<State, Ctx>, inner: ModelCallNext): ModelCallNext {
    let next = inner;
    for (const m of this.wrappers("wrapModelCall")) {
      const downstream = next;
      const around = modelCallAroundOf(m.wrapModelCall);
      next =
        around === undefined
          ? (request: ModelRequest): Promise<ModelResponse> =>
              Promise.resolve(
                callHook<State, Ctx, ModelResponse>(ctx, m, "wrapModelCall", request, downstream),
              )
          : (request: ModelRequest): Promise<ModelResponse> =>
              callAround(ctx, m.name, around, request, downstream);
    }
    return next;
  }

  /** Compose the tool-call onion around `inner` (first registered = outermost). */
  wrapTool(ctx: HookContext<State, Ctx>, inner: ToolCallNext): ToolCallNext {
    let next = inner;
    for (const m of this.wrappers("wrapToolCall")) {
      const downstream = next;
      next = (call: ToolCall): Promise<ToolResult> =>
        Promise.resolve(callHook<State, Ctx, ToolResult>(ctx, m, "wrapToolCall", call, downstream));
    }
    return next;
  }

  /**
   * The stack's only `wrapModelCall` hook when it is in split form (see `wrapsModelCallAround`):
   * the loop then runs it inside its direct model call instead of composing the onion.
   * `undefined` with no wrap hook, several, or one that is not split.
   */
  get soleModelCallAround(): SoleModelCallAround | undefined {
    if (this.soleAround === null) {
      const wraps = this.with("wrapModelCall");
      const around = wraps.length === 1 ? modelCallAroundOf(wraps[0]?.wrapModelCall) : undefined;
      this.soleAround =
        around === undefined
          ? undefined
          : new SoleModelCallAround((wraps[0] as Middleware<State, Ctx>).name, around);
    }
    return this.soleAround;
  }

  /** The middleware implementing a wrap hook, innermost (last registered) first. */
  private wrappers(hook: "wrapModelCall" | "wrapToolCall"): Middleware<State, Ctx>[] {
    let found = this.innermostFirst.get(hook);
    if (found === undefined) {
      found = [...this.with(hook)].reverse();
      this.innermostFirst.set(hook, found);
    }
    return found;
  }

  /** Every middleware's `onError`, once each; their own failures are reported as events and swallowed. */
  async onError(ctx: HookContext<State, Ctx>, error: TinyAgentsError): Promise<void> {
    for (const m of this.with("onError")) {
      try {
        await bracket(ctx, m, "onError", () => m.onError?.(ctx, error));
      } catch {
        // The original error is what the caller gets; the failure is already on the event stream.
      }
    }
  }
}
