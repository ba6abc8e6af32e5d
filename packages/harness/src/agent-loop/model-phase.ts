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
  const prepared = await stack.beforeModel(hook, request, s.parts.policy.protectPromptPrefix);
  if (s.ctx.peekControl() !== undefined) return undefined;
  s.status.modelStarted(callId);
  const call = stack.wrapModel(hook, (req) => resilientModelCall(s, callId, req));
  let response: ModelResponse;
  try {
    response = await call(prepared);
  } finally {
    s.status.modelEnded();
  }
  s.status.phase("middleware");
  return stack.runValueHook(hook, "afterModel", response);
}
