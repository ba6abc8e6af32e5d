import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { LoopSession } from "./loop-session.js";
import { resilientModelCall } from "./resilient-call.js";

/**
 * One model turn: `beforeModel` hooks, the `wrapModelCall` onion around the resilient provider
 * call, then `afterModel` hooks. Shared by the agent loop and the direct `callModel`.
 */
export async function runModelPhase<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  request: ModelRequest,
): Promise<ModelResponse> {
  const stack = s.parts.middleware;
  s.status.phase("middleware");
  const prepared = await stack.runValueHook(s.hook, "beforeModel", request);
  s.status.modelStarted(callId);
  const call = stack.wrapModel(s.hook, (req) => resilientModelCall(s, callId, req));
  let response: ModelResponse;
  try {
    response = await call(prepared);
  } finally {
    s.status.modelEnded();
  }
  s.status.phase("middleware");
  return stack.runValueHook(s.hook, "afterModel", response);
}
