import { type Message, TinyAgentsError, user } from "@tinyagents/inference";
import { cancelled } from "../errors/factories.js";
import { REDIRECT_PREFIX, type SteeringCommandKind } from "../steering/steering-command.js";
import type { SteeringHandle } from "../steering/steering-handle.js";
import type { LoopSession } from "./loop-session.js";

/**
 * Where a steering checkpoint sits: before a model call, or after a model call and before the
 * tool batch it asked for (the transcript ends with unanswered tool calls). Messages injected
 * before a tool batch are held until the batch's results are appended (a tool call must be
 * answered right after the assistant turn).
 */
export type SteeringPoint = "beforeModel" | "beforeTools";

/**
 * Drain `handle` and apply the batch to the run, at whichever point the transcript is (see
 * {@link SteeringPoint}). Returns `"interrupted"` when the batch paused the run (the loop then
 * ends with a `PausedRun`), else `"continue"`.
 *
 * Contract: every command is checked against the handle's policy first; a batch with any
 * disallowed kind is rejected whole — one `steering.applied { accepted: false }` per command,
 * then a `steering` error that fails the run. Accepted commands apply in order, each with a
 * `steering.applied { accepted: true }`; `cancel` aborts the run at once (`cancelled`).
 * Costs nothing when the queue is empty.
 */
export function applySteering<State, Ctx>(
  s: LoopSession<State, Ctx>,
  handle: SteeringHandle,
): "continue" | "interrupted" {
  if (handle.pending === 0) return "continue";
  const { ctx } = s;
  const last = s.transcript.at(-1);
  const where: SteeringPoint =
    last?.role === "assistant" && last.toolCalls.length > 0 ? "beforeTools" : "beforeModel";
  const batch = handle.drain();
  const rejected = [...new Set(batch.filter((c) => !handle.policy.allows(c.kind)).map((c) => c.kind))];
  if (rejected.length > 0) {
    for (const command of batch)
      ctx.emit({ type: "steering.applied", command: command.kind, accepted: false });
    throw rejectedBatch(rejected, handle.policy.kinds(), batch.length);
  }
  let pauseReason: string | undefined;
  for (const command of batch) {
    ctx.emit({ type: "steering.applied", command: command.kind, accepted: true });
    switch (command.kind) {
      case "cancel": {
        const at = where === "beforeModel" ? "before a model call" : "before a tool batch";
        const error = cancelled(`by a steering command ${at}`, command.reason);
        ctx.cancel(error);
        throw error;
      }
      case "pause":
        pauseReason = command.reason ?? "paused by a steering command";
        break;
      case "resume":
        pauseReason = undefined;
        handle.clearPause();
        break;
      case "injectMessage":
        append(s, structuredClone(command.message), where);
        break;
      case "redirect":
        append(s, user(REDIRECT_PREFIX + command.instruction), where);
        break;
      case "setMetadata":
        ctx.config.metadata = structuredClone(command.metadata);
        break;
    }
  }
  if (pauseReason === undefined) return "continue";
  handle.latchPause({ runId: ctx.runId, reason: pauseReason, modelCalls: s.run.modelCalls });
  s.run.stopReason = "interrupted";
  s.pauseReason = pauseReason;
  return "interrupted";
}

/** Append the messages held back during a tool batch (call right after the batch's results). */
export function releaseHeldMessages<State, Ctx>(s: LoopSession<State, Ctx>): void {
  const held = s.heldMessages;
  if (held === undefined) return;
  s.heldMessages = undefined;
  for (const message of held) s.transcript.push(message);
}

function append<State, Ctx>(s: LoopSession<State, Ctx>, message: Message, where: SteeringPoint): void {
  if (where === "beforeModel") s.transcript.push(message);
  else if (s.heldMessages === undefined) s.heldMessages = [message];
  else s.heldMessages.push(message);
}

function rejectedBatch(
  rejected: SteeringCommandKind[],
  allowed: SteeringCommandKind[],
  size: number,
): TinyAgentsError {
  return new TinyAgentsError(
    "steering",
    `steering batch of ${size} command(s) rejected: ${rejected.join(", ")} not allowed by the run's ` +
      `SteeringPolicy (allowed: ${allowed.join(", ") || "nothing"}); allow the kind with ` +
      "`policy.allow(kind)` on the handle's policy, or stop sending it",
    { details: { rejected, allowed, batch: size } },
  );
}
