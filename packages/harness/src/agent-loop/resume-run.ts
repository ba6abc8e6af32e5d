import { throwIfAborted } from "../context/abort.js";
import type { PausedRun } from "../durability/paused-run.js";
import { releaseHeldMessages } from "./apply-steering.js";
import type { LoopSession } from "./loop-session.js";
import { runToolPhase } from "./tool-phase.js";

/**
 * The first moves of a resumed run (its session already restored from `paused`): announce the
 * resumption, then run the tool calls the run paused in front of, append their results and any
 * held steering messages. The loop then continues from its top checkpoint. A tool-call cap
 * reached here stops the run (partial mode) exactly as it would inside the loop: returns true
 * when the run stops here.
 */
export async function resumePendingTools<State, Ctx>(
  s: LoopSession<State, Ctx>,
  paused: PausedRun,
): Promise<boolean> {
  const { ctx, run } = s;
  const pending = paused.pendingToolCalls;
  ctx.emit({
    type: "run.resumed",
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    pendingToolCalls: pending.length,
    usage: { ...run.usage },
    cost: { ...run.cost },
  });
  if (pending.length === 0) {
    releaseHeldMessages(s);
    return false;
  }
  throwIfAborted(ctx.abortHub, "before resuming a paused run");
  const tools = await runToolPhase(s, structuredClone(pending));
  for (const message of tools.messages) s.transcript.push(message);
  releaseHeldMessages(s);
  ctx.emit({ type: "state.updated", step: run.steps.length - 1, messages: s.transcript.length });
  if (!tools.capReached) return false;
  run.stopReason = "limit:tool_calls";
  return true;
}
