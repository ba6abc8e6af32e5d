import type { ModelRequest, ModelResponse, TinyAgentsError } from "@tinyagents/inference";
import { failed } from "./hook-errors.js";
import type { HookContext, ModelCallNext } from "./middleware.js";

/**
 * The `wrapModelCall` of a library middleware that does synchronous work around `next` and
 * nothing else (it calls `next` exactly once, with the request it was given, and returns its
 * response): its work split in three, so the stack runs it without a promise layer of its own.
 * The stack calls `dispatch` just before the call goes down the onion (throwing fails the call
 * before `next`, reported as the hook's `middleware.failed`), then `settled` with the response
 * in the same reaction that emits `middleware.completed`, or `failed` with the error (the hook's
 * `middleware.failed` follows). `settled` throwing fails the call like the hook throwing would.
 */
export interface ModelCallAround<Call> {
  dispatch(ctx: HookContext<unknown, unknown>, request: ModelRequest): Call;
  settled(ctx: HookContext<unknown, unknown>, call: Call, response: ModelResponse): void;
  failed(ctx: HookContext<unknown, unknown>, call: Call, error: unknown): void;
}

// Keyed by the hook function itself, as `readsRequestOnly` is: a copy of the middleware with
// another `wrapModelCall` is not run by the split form by mistake.
const arounds = new WeakMap<object, ModelCallAround<unknown>>();

/**
 * A `wrapModelCall` hook equivalent to {@link ModelCallAround} `around` (dispatch, `next`, then
 * settled or failed), marked so that {@link MiddlewareStack} runs `around` itself: one promise
 * and its two reactions fewer per model call than the hook's own `next(request).then(...)`
 * under the stack's `.then` for `middleware.completed`. Called directly (a test, another
 * stack), the returned hook behaves the same. For the library's own middleware only.
 */
export function wrapsModelCallAround<Call, State = unknown, Ctx = unknown>(
  around: ModelCallAround<Call>,
): (ctx: HookContext<State, Ctx>, request: ModelRequest, next: ModelCallNext) => Promise<ModelResponse> {
  const hook = (
    ctx: HookContext<State, Ctx>,
    request: ModelRequest,
    next: ModelCallNext,
  ): Promise<ModelResponse> => {
    const context = ctx as HookContext<unknown, unknown>;
    let call: Call;
    let pending: Promise<ModelResponse>;
    try {
      call = around.dispatch(context, request);
    } catch (error) {
      return Promise.reject(error);
    }
    try {
      // A caller's `next` may answer a plain value: the reservation is settled either way.
      pending = Promise.resolve(next(request));
    } catch (error) {
      around.failed(context, call, error);
      return Promise.reject(error);
    }
    return pending.then(
      (response) => {
        around.settled(context, call, response);
        return response;
      },
      (error: unknown) => {
        around.failed(context, call, error);
        throw error;
      },
    );
  };
  arounds.set(hook, around as ModelCallAround<unknown>);
  return hook;
}

/** The split form of a `wrapModelCall` hook made by {@link wrapsModelCallAround}, if it is one. */
export function modelCallAroundOf(hook: unknown): ModelCallAround<unknown> | undefined {
  return typeof hook === "function" ? arounds.get(hook) : undefined;
}

/**
 * `middleware.started`, then `around.dispatch`: what {@link settleAround} / {@link failAround}
 * take. Throws the error the call fails with (after `middleware.failed`) when `dispatch` throws.
 */
function dispatchAround<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  name: string,
  around: ModelCallAround<unknown>,
  request: ModelRequest,
): unknown {
  ctx.run.emit({ type: "middleware.started", name, hook: "wrapModelCall" });
  try {
    return around.dispatch(ctx as HookContext<unknown, unknown>, request);
  } catch (thrown) {
    throw failed(ctx, name, "wrapModelCall", thrown);
  }
}

/** `around.settled`, then `middleware.completed`; throws the error the call fails with when it throws. */
function settleAround<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  name: string,
  around: ModelCallAround<unknown>,
  call: unknown,
  response: ModelResponse,
): void {
  try {
    around.settled(ctx as HookContext<unknown, unknown>, call, response);
  } catch (thrown) {
    throw failed(ctx, name, "wrapModelCall", thrown);
  }
  ctx.run.emit({ type: "middleware.completed", name, hook: "wrapModelCall" });
}

/** The call below failed with `thrown`: `around.failed`, `middleware.failed`; returns the error to reject with. */
function failAround<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  name: string,
  around: ModelCallAround<unknown>,
  call: unknown,
  thrown: unknown,
): TinyAgentsError {
  around.failed(ctx as HookContext<unknown, unknown>, call, thrown);
  return failed(ctx, name, "wrapModelCall", thrown);
}

/**
 * A stack's only `wrapModelCall` hook, in split form: the loop runs it inside its direct model
 * call (no onion, no promise layer between the call and the loop; see `resilientModelCall`),
 * bracketed and its failures wrapped as {@link callAround} does.
 */
export class SoleModelCallAround {
  constructor(
    /** The middleware's name (its bracket's). */
    readonly name: string,
    private readonly around: ModelCallAround<unknown>,
  ) {}

  /** See {@link dispatchAround}. */
  dispatch<State, Ctx>(ctx: HookContext<State, Ctx>, request: ModelRequest): unknown {
    return dispatchAround(ctx, this.name, this.around, request);
  }

  /** See {@link settleAround}. */
  settle<State, Ctx>(ctx: HookContext<State, Ctx>, call: unknown, response: ModelResponse): void {
    settleAround(ctx, this.name, this.around, call, response);
  }

  /** See {@link failAround}. */
  fail<State, Ctx>(ctx: HookContext<State, Ctx>, call: unknown, thrown: unknown): TinyAgentsError {
    return failAround(ctx, this.name, this.around, call, thrown);
  }
}

/**
 * Run middleware `name`'s `wrapModelCall` in its split form around `downstream` (the rest of the
 * onion), bracketed as the stack brackets every hook: `middleware.started`, then the settlement
 * and `middleware.completed` (or `failed` and `middleware.failed`, the error wrapped by
 * `hookError`) in one reaction to the call below it.
 */
export function callAround<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  name: string,
  around: ModelCallAround<unknown>,
  request: ModelRequest,
  downstream: ModelCallNext,
): Promise<ModelResponse> {
  let call: unknown;
  let pending: Promise<ModelResponse>;
  try {
    call = dispatchAround(ctx, name, around, request);
  } catch (error) {
    return Promise.reject(error);
  }
  try {
    pending = downstream(request);
  } catch (thrown) {
    return Promise.reject(failAround(ctx, name, around, call, thrown));
  }
  return pending.then(
    (response) => {
      settleAround(ctx, name, around, call, response);
      return response;
    },
    (thrown: unknown) => {
      throw failAround(ctx, name, around, call, thrown);
    },
  );
}
