import type { MiddlewareHook } from "../contracts/agent-event.js";
import { failed } from "./hook-errors.js";
import type { HookContext, Middleware } from "./middleware.js";

// One middleware hook call between its `middleware.started` and `middleware.completed` (or
// `middleware.failed`) events: shared by the stack and its `beforeModel` chain.

/** The hooks {@link callHook} calls: a value hook (`m[hook](ctx, input)`) or a wrap hook (`..., next`). */
export type CalledHook =
  | "beforeModel"
  | "afterModel"
  | "beforeTool"
  | "afterTool"
  | "afterAgent"
  | "wrapModelCall"
  | "wrapToolCall";

/**
 * `fn` between `middleware.started` and `middleware.completed` (or `middleware.failed`, the
 * error wrapped by `hookError`). A synchronous answer is returned as it is; a promise (or any
 * thenable) is settled first; a failure is always a rejected promise.
 */
export function bracket<State, Ctx, T>(
  ctx: HookContext<State, Ctx>,
  m: Middleware<State, Ctx>,
  hook: MiddlewareHook,
  fn: () => T | Promise<T>,
): T | Promise<T> {
  ctx.run.emit({ type: "middleware.started", name: m.name, hook });
  let result: T | Promise<T>;
  try {
    result = fn();
  } catch (thrown) {
    return Promise.reject(failed(ctx, m.name, hook, thrown));
  }
  return completed(ctx, m, hook, result);
}

/**
 * {@link bracket} around `m[hook](ctx, input)` (a value hook) or `m[hook](ctx, input, next)` (a
 * wrap hook), without a closure per call.
 */
export function callHook<State, Ctx, T>(
  ctx: HookContext<State, Ctx>,
  m: Middleware<State, Ctx>,
  hook: CalledHook,
  input: unknown,
  next?: unknown,
): T | Promise<T> {
  ctx.run.emit({ type: "middleware.started", name: m.name, hook });
  const fn = m[hook] as (this: Middleware<State, Ctx>, ...args: unknown[]) => T | Promise<T>;
  let result: T | Promise<T>;
  try {
    result = next === undefined ? fn.call(m, ctx, input) : fn.call(m, ctx, input, next);
  } catch (thrown) {
    return Promise.reject(failed(ctx, m.name, hook, thrown));
  }
  return completed(ctx, m, hook, result);
}

/** The end of a bracket: `middleware.completed` now, or once a promise settles (or `middleware.failed`). */
export function completed<State, Ctx, T>(
  ctx: HookContext<State, Ctx>,
  m: Middleware<State, Ctx>,
  hook: MiddlewareHook,
  result: T | Promise<T>,
): T | Promise<T> {
  if (!isThenable(result)) {
    ctx.run.emit({ type: "middleware.completed", name: m.name, hook });
    return result;
  }
  return Promise.resolve(result).then(
    (value) => {
      ctx.run.emit({ type: "middleware.completed", name: m.name, hook });
      return value;
    },
    (thrown: unknown) => {
      throw failed(ctx, m.name, hook, thrown);
    },
  );
}

/** A promise or any object with a `then` method. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
