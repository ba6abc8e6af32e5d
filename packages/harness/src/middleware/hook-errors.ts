import { TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import type { MiddlewareHook } from "../contracts/agent-event.js";
import type { HookContext, Middleware } from "./middleware.js";

// The errors a middleware hook fails a run with, and their `middleware.failed` events.

/** Report a hook's failure as its `middleware.failed` event; returns the error the run fails with. */
export function failed<State, Ctx>(
  ctx: HookContext<State, Ctx>,
  middleware: string,
  hook: MiddlewareHook,
  thrown: unknown,
): TinyAgentsError {
  const error = hookError(middleware, hook, thrown);
  ctx.run.emit({ type: "middleware.failed", name: middleware, hook, error: error.toJSON() });
  return error;
}

/**
 * The error a throwing hook fails the run with: a tinyagents error as it is, anything else a
 * `middleware` error naming the middleware and the hook (`details: { middleware, hook }`).
 * Also used for the per-delta hooks (`onModelDelta`, `onToolDelta`), which are not bracketed.
 */
export function hookError(middleware: string, hook: string, thrown: unknown): TinyAgentsError {
  if (TinyAgentsError.isInstance(thrown)) return thrown;
  return new TinyAgentsError(
    "middleware",
    `middleware "${middleware}" failed in ${hook}: ${toTinyAgentsError(thrown).message}`,
    { cause: thrown, details: { middleware, hook } },
  );
}

/**
 * The error for a `beforeModel` hook that changed the cacheable prompt prefix (of `segment`,
 * when the request has segments) without declaring it may: it would silently break prompt
 * caching.
 */
export function prefixViolation<State, Ctx>(
  m: Middleware<State, Ctx>,
  segment: string | undefined,
): TinyAgentsError {
  const where = segment === undefined ? "" : ` (segment "${segment}")`;
  return new TinyAgentsError(
    "validation",
    `middleware "${m.name}" changed the cacheable prompt prefix${where} in beforeModel without declaring ` +
      `changes: "prefix"; declare it, move the edit to the volatile tail (append at the end), ` +
      `or turn off RunPolicy.protectPromptPrefix`,
    { details: { middleware: m.name, hook: "beforeModel", ...(segment === undefined ? {} : { segment }) } },
  );
}
