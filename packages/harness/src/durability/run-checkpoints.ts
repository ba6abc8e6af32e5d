import type { LoopSession } from "../agent-loop/loop-session.js";
import { capturePausedRun } from "../steering/paused-run.js";

/** The `PausedRun.reason` of a checkpoint. */
export const CHECKPOINT_REASON = "checkpoint";

/**
 * Save the run's checkpoint (a no-op without `durability.checkpoints`): called by the loop at
 * its safe boundaries — a model response recorded, a tool batch finished. The events it covers
 * are made durable first (`durability.flush`), so recovery never continues from a state whose
 * events the journal lost; its `eventOffset` is where the recovered run's events continue.
 */
export async function saveCheckpoint<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const durability = s.ctx.durability;
  if (durability?.checkpoints === undefined) return;
  const checkpoint = capturePausedRun(s, CHECKPOINT_REASON);
  checkpoint.eventOffset = s.ctx.events.offset;
  if (durability.flush !== undefined) await durability.flush();
  await durability.checkpoints.save(checkpoint);
}

/** The run ended (completed, failed, paused): its checkpoint and tool intents are deleted. */
export async function dropCheckpoint<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const store = s.ctx.durability?.checkpoints;
  if (store !== undefined) await store.delete(s.run.runId);
}
