import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { HookContext } from "../middleware/middleware.js";
import { durableModelTurn } from "./durable-model-turn.js";
import type { LoopSession } from "./loop-session.js";
import { resilientModelCall } from "./resilient-call.js";

/**
 * One model turn: `beforeModel` hooks (watching the cacheable prefix), the `wrapModelCall` onion
 * around the resilient provider call, then `afterModel` hooks. Shared by the agent loop and the
 * direct `callModel`. Model hooks see the call id on `ctx.callId`.
 *
 * Returns `undefined` without calling the model when a `beforeModel` hook requested control
 * (`ctx.run.requestControl`): the caller applies the request (it is still pending).
 */
export function runModelPhase<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  request: ModelRequest,
): Promise<ModelResponse | undefined> {
  const stack = s.parts.middleware;
  s.status.phase("middleware");
  // No middleware, no hooks to run or look up (the common case costs nothing).
  if (stack.list.length === 0) return callThroughStack(s, s.hook, callId, request);
  const hook: HookContext<State, Ctx> = { state: s.state, run: s.ctx, callId, tools: s.parts.tools };
  // Hooks return plain values when no middleware implements them; the phase is then chained
  // with `.then` rather than async frames (thousands of runs can be waiting here at once).
  let before: ModelRequest | Promise<ModelRequest>;
  try {
    before = stack.beforeModel(hook, request, s.parts.policy.protectPromptPrefix);
  } catch (error) {
    return Promise.reject(error);
  }
  if (before instanceof Promise)
    return before.then((prepared) => callThroughStack(s, hook, callId, prepared));
  return callThroughStack(s, hook, callId, before);
}

/** The `wrapModelCall` onion around the resilient call: what a journaled run's model step runs. */
function modelCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  hook: HookContext<State, Ctx>,
  callId: string,
  prepared: ModelRequest,
): Promise<ModelResponse> {
  const stack = s.parts.middleware;
  return stack.with("wrapModelCall").length === 0
    ? resilientModelCall(s, callId, prepared)
    : stack.wrapModel(hook, (req) => resilientModelCall(s, callId, req))(prepared);
}

/** The model call proper (unless a `beforeModel` hook requested control), then `afterModel`. */
function callThroughStack<State, Ctx>(
  s: LoopSession<State, Ctx>,
  hook: HookContext<State, Ctx>,
  callId: string,
  prepared: ModelRequest,
): Promise<ModelResponse | undefined> {
  if (s.ctx.peekControl() !== undefined) return Promise.resolve(undefined);
  const stack = s.parts.middleware;
  // Counted when made, like the status record: a call that fails still counts.
  s.run.modelCalls++;
  // With nothing between the status record and the provider attempt (no wrap, no journal step),
  // the attempt starts at this instant and its end is the call's end: the call reads the clock
  // twice (start, end), shared by the status record, the open attempt and `durationMs`. A sole
  // wrap in split form (budget's) runs inside that direct call (see `resilientModelCall`).
  const direct =
    !s.ctx.journaled &&
    (stack.list.length === 0 ||
      stack.with("wrapModelCall").length === 0 ||
      stack.soleModelCallAround !== undefined);
  const startedAt = s.ctx.clock.now();
  s.status.modelStarted(callId, startedAt);
  // Direct: the resilient call itself ends the status entry and runs `afterModel` (one promise
  // layer fewer per model call); see `ResilientCall.start`.
  if (direct) return resilientModelCall(s, callId, prepared, startedAt, hook);
  let call: Promise<ModelResponse>;
  if (s.ctx.journaled) call = durableModelTurn(s, callId, () => modelCall(s, hook, callId, prepared));
  else call = modelCall(s, hook, callId, prepared);
  return call.then(
    (response) => {
      s.status.modelEnded();
      s.status.phase("middleware");
      return stack.runValueHook(hook, "afterModel", response);
    },
    (error: unknown) => {
      s.status.modelEnded();
      throw error;
    },
  );
}
