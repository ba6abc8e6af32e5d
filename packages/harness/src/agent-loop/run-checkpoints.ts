import type { JsonObject, Message, TinyAgentsError } from "@tinyagents/inference";
import type { PausedRun } from "../durability/paused-run.js";
import type { RunHold } from "../durability/run-hold.js";
import type { TakeMode } from "../durability/run-record.js";
import type { LoopSession } from "./loop-session.js";
import { capturePausedRun } from "./paused-run.js";

/** The `PausedRun.reason` of a checkpoint. */
export const CHECKPOINT_REASON = "checkpoint";

/**
 * Take the run's durable record before it does anything (a no-op without a checkpoint store, or
 * when `recover` took it already): `start` for a new run (its input and config recorded with the
 * take), `resume` for a paused run, `recover` for a checkpoint handed to `resume`. Resolves to
 * the refusal (`conflict` naming the run) instead of throwing: the caller ends the run at once,
 * without emitting or executing anything.
 */
export async function takeRunRecord<State, Ctx>(
  s: LoopSession<State, Ctx>,
  input: Message[],
  resumed: PausedRun | undefined,
): Promise<TinyAgentsError | undefined> {
  const { ctx } = s;
  const durability = ctx.durability;
  const store = durability?.checkpoints;
  if (durability === undefined || store === undefined || durability.lease !== undefined || ctx.journaled)
    return undefined;
  const mode: TakeMode =
    resumed === undefined ? "start" : resumed.reason === CHECKPOINT_REASON ? "recover" : "resume";
  try {
    durability.lease = await store.take({
      runId: ctx.runId,
      mode,
      ownerId: durability.ownerId,
      leaseMs: durability.leaseMs,
      now: ctx.clock.now(),
      rootRunId: ctx.scope.rootRunId,
      ...(ctx.config.parentRunId === undefined
        ? {}
        : { parentRunId: ctx.config.parentRunId, continueChild: true }),
      ...(durability.agent === undefined ? {} : { agent: durability.agent }),
      ...(resumed === undefined
        ? { start: { input: JSON.parse(JSON.stringify(input)) as Message[], config: configJson(ctx.config) } }
        : { paused: resumed }),
    });
    return undefined;
  } catch (error) {
    return error as TinyAgentsError;
  }
}

/**
 * Save the run's checkpoint (a no-op without a lease on its durable record): called by the loop
 * at its safe boundaries — before the first model call, after every model response (the final
 * one with `final`), after every tool batch. The events it covers are made durable first
 * (`durability.flush`), so recovery never continues from a state whose events the journal lost;
 * its `eventOffset` is where the recovered run's events continue. A process that lost the run
 * gets `conflict` here, and the run stops.
 */
export async function saveCheckpoint<State, Ctx>(s: LoopSession<State, Ctx>, final = false): Promise<void> {
  const durability = s.ctx.durability;
  const lease = durability?.lease;
  if (durability === undefined || lease === undefined) return;
  const checkpoint = capturePausedRun(s, CHECKPOINT_REASON);
  checkpoint.eventOffset = s.ctx.events.offset;
  if (durability.flush !== undefined) await durability.flush();
  await lease.saveCheckpoint(JSON.parse(JSON.stringify(checkpoint)) as PausedRun, s.ctx.clock.now(), final);
}

/**
 * The run is completing: mark, in its record, the offset its `run.completed` event gets. A
 * recovered run finding the mark skips what was done (memory saved) and emits `run.completed`
 * only if its journal did not reach that offset, so a crash while completing never leaves the
 * journal with two `run.completed`, nor with none.
 */
export async function markCompleting<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const lease = s.ctx.durability?.lease;
  if (lease !== undefined) await lease.completing(s.ctx.events.offset, s.ctx.clock.now());
}

/** The run paused: its paused record replaces its checkpoint in one fenced write (no gap). */
export async function pauseCheckpoint<State, Ctx>(
  s: LoopSession<State, Ctx>,
  paused: PausedRun,
): Promise<void> {
  const durability = s.ctx.durability;
  const lease = durability?.lease;
  if (durability === undefined || lease === undefined) return;
  if (durability.flush !== undefined) await durability.flush();
  await lease.pause(JSON.parse(JSON.stringify(paused)) as PausedRun, s.ctx.clock.now());
}

/**
 * The run ended (completed or failed): its outcome is recorded and its checkpoint dropped in one
 * fenced write; the intents of its `"once"` calls stay. A paused run keeps its paused record.
 */
export async function finishRunRecord<State, Ctx>(
  s: LoopSession<State, Ctx>,
  error: TinyAgentsError | undefined,
): Promise<void> {
  const lease: RunHold | undefined = s.ctx.durability?.lease;
  if (lease === undefined || s.run.stopReason === "interrupted") return;
  await lease.finish(
    error === undefined ? "completed" : "failed",
    error === undefined
      ? { stopReason: s.run.stopReason }
      : { stopReason: s.run.stopReason, errorCode: error.code },
    s.ctx.clock.now(),
  );
}

function configJson(config: object): JsonObject {
  return JSON.parse(JSON.stringify(config)) as JsonObject;
}
