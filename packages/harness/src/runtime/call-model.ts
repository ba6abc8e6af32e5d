import { type ModelRequest, type ModelResponse, TinyAgentsError } from "@tinyagents/inference";
import { checkDeadline } from "../agent-loop/checkpoint.js";
import { holdRun } from "../agent-loop/deadline.js";
import type { LoopSession } from "../agent-loop/loop-session.js";
import { runModelPhase } from "../agent-loop/model-phase.js";
import { controlledResponse } from "../agent-loop/model-turn-control.js";
import { failRun } from "../agent-loop/run-loop.js";
import type { HarnessRunStatus } from "../status/run-status.js";

/**
 * One model call through the loop's machinery (`harness.callModel`): model resolution,
 * middleware, retry/fallback, usage and cost, events, the model-call cap and its own status
 * record. Throws the call's error after reporting it like a failed run.
 */
export async function callModelOnce<State, Ctx>(
  s: LoopSession<State, Ctx>,
  request: ModelRequest,
): Promise<{ response: ModelResponse; status: HarnessRunStatus }> {
  const { ctx } = s;
  const letGo = holdRun(ctx);
  try {
    s.status.start();
    ctx.emit({
      type: "run.started",
      input: request.messages.length,
      ...(ctx.threadId ? { threadId: ctx.threadId } : {}),
      ...(ctx.config.tags.length > 0 ? { tags: ctx.config.tags.slice() } : {}),
    });
    const hit = ctx.limits.admitModelCall();
    if (hit !== undefined) {
      ctx.emit({ type: "limit.reached", limit: hit.limit, value: hit.value, count: hit.count });
      throw hit.error;
    }
    const answered = await runModelPhase(s, `${ctx.runId}-model-1`, request);
    // A middleware's control request (beforeModel or afterModel) decides the answer.
    const response = controlledResponse(s, answered);
    checkDeadline(s);
    ctx.emit({ type: "run.completed", modelCalls: 1, toolCalls: 0, usage: s.run.usage, cost: s.run.cost });
    s.status.finish("completed");
    return { response, status: s.status.snapshot() };
  } catch (thrown) {
    const error = TinyAgentsError.isInstance(thrown)
      ? thrown
      : new TinyAgentsError("internal", String(thrown), { cause: thrown });
    await failRun(s, error);
    throw error;
  } finally {
    letGo();
  }
}
