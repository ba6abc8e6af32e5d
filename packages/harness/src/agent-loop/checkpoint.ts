import { assistant } from "@tinyagents/inference";
import { abortError } from "../context/abort.js";
import { applySteering } from "./apply-steering.js";
import type { LoopSession } from "./loop-session.js";

/** What a checkpoint decided: keep going, or end the run the way a control request asked. */
export type CheckpointOutcome = "continue" | "stopped" | "interrupted";

/**
 * The safe point at the top of every turn (and after each model call): abort signal, pending
 * steering commands (only when the run has a steering handle), pending middleware control
 * (interrupt > stop-with-final), then the wall-clock deadline.
 * Throws `cancelled`, `steering` or `timeout`; applies steering and control requests to the run.
 */
export function checkpoint<State, Ctx>(s: LoopSession<State, Ctx>): CheckpointOutcome {
  const { ctx } = s;
  if (ctx.aborted) throw abortError(ctx.abortHub, "at a checkpoint");
  if (ctx.steering !== undefined && applySteering(s, ctx.steering) === "interrupted") return "interrupted";
  const control = ctx.takeControl();
  if (control?.kind === "interrupt") {
    ctx.emit({ type: "control.applied", control: "interrupt", detail: control.reason });
    s.run.stopReason = "interrupted";
    s.pauseReason = control.reason;
    return "interrupted";
  }
  if (control?.kind === "stopWithFinal") {
    ctx.emit({ type: "control.applied", control: "stopWithFinal", detail: control.text });
    const final = assistant(control.text);
    s.transcript.push(final);
    s.run.finalResponse = { message: final, finishReason: "stop" };
    s.run.stopReason = "stop_with_final";
    return "stopped";
  }
  checkDeadline(s);
  return "continue";
}

/**
 * Throw `timeout` (after a `limit.reached` event) when the run's wall-clock deadline has passed.
 * Also called right after each model call: with a virtual clock nothing else notices a call that
 * overran the deadline and then gave the final answer.
 */
export function checkDeadline<State, Ctx>(s: LoopSession<State, Ctx>): void {
  const { ctx } = s;
  // No deadline, no clock read (this runs twice per step).
  if (ctx.limits.limits.deadline === undefined) return;
  const late = ctx.limits.checkDeadline(ctx.clock.now());
  if (late !== undefined) {
    ctx.emit({
      type: "limit.reached",
      limit: "wall_clock",
      value: ctx.limits.limits.timeoutMs ?? 0,
      count: ctx.clock.now() - ctx.limits.startedAt,
    });
    throw late;
  }
}
