import type { JsonValue } from "@tinyagents/inference";
import { resumeSignalName, validateResumeSignal } from "../durability/durable-signals.js";
import type { PausedRun } from "../durability/paused-run.js";
import type { LoopSession } from "./loop-session.js";

/**
 * A journaled run that would end paused (a steering `pause`, a middleware `interrupt`) waits
 * instead, durably, on its resume signal `resumeSignalName(runId, n)` (`n`: this run's n-th
 * pause, so a re-driven run waits on the same name). Returns true when the signal came: the
 * run's pause is cleared and the signal's `messages` / `metadata` applied (messages are held
 * until the results of the tool calls it paused in front of, when there are some; the caller
 * runs those next). Returns false when the engine's `resumeTimeoutMs` passed first: the run then
 * ends paused as in process. A malformed value throws `validation` (the run fails: a signal
 * cannot be sent twice).
 */
export async function awaitDurableResume<State, Ctx>(
  s: LoopSession<State, Ctx>,
  paused: PausedRun,
): Promise<boolean> {
  const { ctx } = s;
  s.pauses = (s.pauses ?? 0) + 1;
  const timeoutMs = ctx.durable.resumeTimeoutMs;
  const value = await ctx.durable.awaitSignal<JsonValue>(
    resumeSignalName(ctx.runId, s.pauses),
    timeoutMs === undefined ? {} : { timeoutMs },
  );
  if (value === undefined) return false;
  const signal = validateResumeSignal(value);
  s.run.stopReason = "completed";
  delete s.pauseReason;
  ctx.steering?.clearPause();
  if (signal.metadata !== undefined) ctx.config.metadata = structuredClone(signal.metadata);
  for (const message of structuredClone(signal.messages ?? [])) {
    if (paused.pendingToolCalls.length === 0) s.transcript.push(message);
    else if (s.heldMessages === undefined) s.heldMessages = [message];
    else s.heldMessages.push(message);
  }
  return true;
}
