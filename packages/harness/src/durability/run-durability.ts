import { validationError } from "@tinyagents/inference";
import type { RunHold, RunRecordStore } from "./run-hold.js";

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
  /** Who runs it (a worker or process id the host chooses; default a fresh `process-<pid>-<n>` per run). */
  ownerId?: string;
  /** The lease: how long after its last sign of life the run counts as alive (default 30 s, >= 10 ms). */
  leaseMs?: number;
  /**
   * How often a live run renews its lease while it is quiet (default a third of `leaseMs`;
   * >= 5 ms and below `leaseMs`).
   */
  heartbeatMs?: number;
  /**
   * Checkpoint the run here (opt-in; a `CheckpointStore`): the run is taken (owner, fencing epoch,
   * lease) before it does anything, its input is durable before the first model call, and at
   * every safe boundary the loop saves what a `PausedRun` holds plus the journal offset, so
   * `recover` can continue the run after a crash.
   */
  checkpoints?: RunRecordStore;
  /** The agent's name, recorded with the run so a supervisor knows which agent recovers it. */
  agent?: string;
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
  heartbeatMs: number;
  checkpoints?: RunRecordStore;
  agent?: string;
  flush?: () => Promise<void>;
  /** @internal The run's hold on its durable record, once taken (the loop sets it, or `recover`). */
  lease?: RunHold;
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
  const heartbeatMs = options.heartbeatMs ?? Math.max(5, Math.floor(leaseMs / 3));
  if (
    typeof heartbeatMs !== "number" ||
    !Number.isFinite(heartbeatMs) ||
    heartbeatMs < 5 ||
    heartbeatMs >= leaseMs
  ) {
    throw validationError(
      `durability.heartbeatMs must be a number of milliseconds >= 5 and below leaseMs (${leaseMs}), got ${String(heartbeatMs)}`,
      { field: "durability.heartbeatMs" },
    );
  }
  if (options.agent !== undefined && (typeof options.agent !== "string" || options.agent === "")) {
    throw validationError("durability.agent must be a non-empty string", { field: "durability.agent" });
  }
  const resolved: ResolvedDurability = { ownerId, leaseMs, heartbeatMs };
  if (options.checkpoints !== undefined) {
    if (typeof options.checkpoints !== "object" || typeof options.checkpoints?.take !== "function") {
      throw validationError("durability.checkpoints must be a CheckpointStore", {
        field: "durability.checkpoints",
      });
    }
    resolved.checkpoints = options.checkpoints;
  }
  if (options.agent !== undefined) resolved.agent = options.agent;
  if (options.flush !== undefined) resolved.flush = options.flush;
  return resolved;
}

let owners = 0;

/**
 * A fresh owner id per run (`process-<pid>-<n>`, `worker-<n>` without a process): two runs or
 * recoveries never share an owner by accident, so one never passes for the lease holder of
 * another's run. A host that wants a restarted worker to take its own runs back at once gives a
 * stable `ownerId`.
 */
function defaultOwnerId(): string {
  const pid = (globalThis as { process?: { pid?: number } }).process?.pid;
  owners++;
  return pid === undefined ? `worker-${owners}` : `process-${pid}-${owners}`;
}
