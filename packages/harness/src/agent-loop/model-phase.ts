import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { HookContext } from "../middleware/middleware.js";
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
export async function runModelPhase<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  request: ModelRequest,
): Promise<ModelResponse | undefined> {
  const stack = s.parts.middleware;
  const hook: HookContext<State, Ctx> =
    stack.list.length === 0 ? s.hook : { state: s.state, run: s.ctx, callId, tools: s.parts.tools };
  s.status.phase("middleware");
  // Hooks return plain values when no middleware implements them: no await (and no microtask
  // hop) is spent on them then.
  const before = stack.beforeModel(hook, request, s.parts.policy.protectPromptPrefix);
  const prepared = before instanceof Promise ? await before : before;
  if (s.ctx.peekControl() !== undefined) return undefined;
  // Counted when made, like the status record: a call that fails still counts.
  s.run.modelCalls++;
  s.status.modelStarted(callId);
  let response: ModelResponse;
  try {
    response =
      stack.with("wrapModelCall").length === 0
        ? await resilientModelCall(s, callId, prepared)
        : await stack.wrapModel(hook, (req) => resilientModelCall(s, callId, req))(prepared);
  } finally {
    s.status.modelEnded();
  }
  s.status.phase("middleware");
  return stack.runValueHook(hook, "afterModel", response);
}
