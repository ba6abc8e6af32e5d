import { type ModelRequest, system } from "@tinyagents/inference";
import type { HookContext, Middleware } from "../middleware.js";
import { callable, middlewareName } from "./option-checks.js";

/** Computes the dynamic part of the system prompt for one model call; empty or undefined adds nothing. */
export type DynamicPrompt<State = unknown, Ctx = unknown> = (
  ctx: HookContext<State, Ctx>,
  request: ModelRequest,
) => string | undefined | Promise<string | undefined>;

/**
 * Adds a per-call system note computed from the state (current date, user profile, task
 * progress, ...) as the LAST message of the request — the volatile tail — so the cacheable
 * prefix (static system prompt, tools, history) stays byte-stable across calls. Declares
 * `changes: "tail"`: with `RunPolicy.protectPromptPrefix` it is checked never to touch the
 * prefix. The run's transcript is not changed (the note is not stored).
 * Throws `validation` at construction when `compute` is not a function.
 */
export function dynamicPromptMiddleware<State = unknown, Ctx = unknown>(
  compute: DynamicPrompt<State, Ctx>,
  options: { name?: string } = {},
): Middleware<State, Ctx> {
  const name = middlewareName("dynamic_prompt", options.name);
  const fn = callable(name, "compute", compute);
  return {
    name,
    changes: "tail",
    async beforeModel(ctx, request) {
      const text = await fn(ctx, request);
      if (text === undefined || text === "") return undefined;
      return { ...request, messages: [...request.messages, system(text)] };
    },
  };
}
