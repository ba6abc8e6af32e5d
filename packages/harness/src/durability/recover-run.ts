import { validationError } from "@tinyagents/inference";
import { type RunDurability, resolveDurability } from "./run-durability.js";
import type { RunHold, RunRecordStore } from "./run-hold.js";
import { refusal } from "./run-record.js";

/** `recover`'s durability: the checkpoint store the crashed run wrote is required. */
export type RecoverDurability = RunDurability & { checkpoints: RunRecordStore };

/**
 * Take run `runId` for recovery: one compare-and-set on its durable record that succeeds only
 * when the run is running with no live lease (its owner died) or the caller holds the lease, and
 * bumps its epoch, so the dead owner (or a slow one) can write nothing more. Of several
 * concurrent recoverers, in any processes, exactly one gets the lease; the others get `conflict`
 * naming the run. Refused too (`conflict`): a run unknown to the store, finished, paused (resume
 * it), a child run (recover its root), or one with nothing to continue from. Throws `validation`
 * when `durability.checkpoints` is missing.
 */
export async function takeForRecovery(
  runId: string,
  durability: RunDurability | undefined,
  now: number,
): Promise<RunHold> {
  if (typeof runId !== "string" || runId === "") {
    throw validationError("recover needs the run id of a checkpointed run", { field: "runId" });
  }
  if (durability?.checkpoints === undefined) {
    throw validationError(
      "recover needs durability.checkpoints: the CheckpointStore the crashed run saved its checkpoints in",
      { field: "durability.checkpoints" },
    );
  }
  const resolved = resolveDurability(durability);
  const store = resolved.checkpoints as RunRecordStore;
  const lease = await store.take({
    runId,
    mode: "recover",
    ownerId: resolved.ownerId,
    leaseMs: resolved.leaseMs,
    now,
    ...(resolved.agent === undefined ? {} : { agent: resolved.agent }),
  });
  if (lease.taken.checkpoint === undefined && lease.taken.start === undefined) {
    await lease.release(now).catch(() => undefined);
    throw refusal(runId, "recover", "its record holds neither a checkpoint nor the run's input");
  }
  return lease;
}
