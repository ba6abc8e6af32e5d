import { validationError } from "@tinyagents/inference";
import type { PausedRun } from "../contracts/paused-run.js";
import type { RunCheckpoints } from "./checkpoint-contract.js";
import type { RunDurability } from "./run-durability.js";

/** `harness.recover`'s durability: the checkpoint store the crashed run wrote is required. */
export type RecoverDurability = RunDurability & { checkpoints: RunCheckpoints };

/**
 * Claim the checkpoint of `runId` for `harness.recover`, exclusively: of several concurrent
 * recoverers exactly one gets it, the others get `conflict` naming the run id. The returned
 * `PausedRun` is resumed like a paused one: its pending tool calls (those whose results were not
 * checkpointed) run again — a `sideEffects: "once"` call that already started is answered from
 * its intent instead — then the loop issues the next model call. Throws `validation` when
 * `durability.checkpoints` is missing.
 */
export async function claimCheckpoint(
  runId: string,
  durability: RunDurability | undefined,
): Promise<PausedRun> {
  if (typeof runId !== "string" || runId === "") {
    throw validationError("recover needs the run id of a checkpointed run", { field: "runId" });
  }
  const store = durability?.checkpoints;
  if (store === undefined) {
    throw validationError(
      "recover needs options.durability.checkpoints: the CheckpointStore the crashed run saved its checkpoints in",
      { field: "durability.checkpoints" },
    );
  }
  return store.claim(runId);
}
