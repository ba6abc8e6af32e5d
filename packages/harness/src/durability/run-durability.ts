import { validationError } from "@tinyagents/inference";
import type { RunCheckpoints } from "./checkpoint-contract.js";

/** Default lease of a run: declared dead this long after its last sign of life. */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * Liveness of a run (opt-in, `ContextOptions.durability`): its status record carries `ownerId`,
 * `heartbeatAt` and `leaseUntil`. Every event of the run is a sign of life (the loop emits at
 * every safe boundary); while one long model or tool call is in flight, one shared timer per
 * clock emits `run.heartbeat` for runs that have been quiet. A run whose lease expired (its
 * process died) is found and marked `failed` / `abandoned` by `statusStore.reapStale`.
 */
export interface RunDurability {
  /** Who runs it (a worker or process id the host chooses; default `process-<pid>`). */
  ownerId?: string;
  /** The lease: how long after its last sign of life the run counts as alive (default 30 s, >= 10 ms). */
  leaseMs?: number;
  /**
   * Checkpoint the run here (opt-in; a `CheckpointStore`): at every safe boundary the loop saves what a `PausedRun`
   * holds plus the journal offset, so `harness.recover` can continue the run after a crash.
   */
  checkpoints?: RunCheckpoints;
  /**
   * Make the run's events durable (e.g. `() => observed.flush()` of `attachObservability`): awaited
   * before each checkpoint, so a checkpoint never covers events the journal could still lose.
   */
  flush?: () => Promise<void>;
}

/** A validated {@link RunDurability}. */
export interface ResolvedDurability {
  ownerId: string;
  leaseMs: number;
  checkpoints?: RunCheckpoints;
  flush?: () => Promise<void>;
}

/** Validate and default a run's durability options (`validation` for bad values). */
export function resolveDurability(options: RunDurability): ResolvedDurability {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  if (typeof leaseMs !== "number" || !Number.isFinite(leaseMs) || leaseMs < 10) {
    throw validationError(
      `durability.leaseMs must be a number of milliseconds >= 10, got ${String(leaseMs)}`,
      {
        field: "durability.leaseMs",
      },
    );
  }
  const ownerId = options.ownerId ?? defaultOwnerId();
  if (typeof ownerId !== "string" || ownerId === "") {
    throw validationError("durability.ownerId must be a non-empty string", { field: "durability.ownerId" });
  }
  const resolved: ResolvedDurability = { ownerId, leaseMs };
  if (options.checkpoints !== undefined) resolved.checkpoints = options.checkpoints;
  if (options.flush !== undefined) resolved.flush = options.flush;
  return resolved;
}

/** `process-<pid>` where there is a process, else `worker`. */
function defaultOwnerId(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  return pid === undefined ? "worker" : `process-${pid}`;
}
