import { validationError } from "@tinyagents/inference";
import type { HarnessRunStatus } from "../status/run-status.js";

/** What `statusStore.reapStale` treats as dead. */
export interface ReapOptions {
  /**
   * Grace past the lease: a run is stale when it is still pending or running and its lease
   * ended (records without a lease: its last update) more than this many ms ago.
   */
  olderThanMs: number;
  /** The current time (epoch ms; default `Date.now()`): pass the clock of your runs. */
  now?: number;
}

/** Validate reap options; returns the cutoff (a run whose lease ended before it is stale). */
export function reapCutoff(options: ReapOptions): number {
  const olderThanMs = options?.olderThanMs;
  if (typeof olderThanMs !== "number" || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
    throw validationError(`reapStale needs olderThanMs >= 0 (milliseconds), got ${String(olderThanMs)}`, {
      field: "olderThanMs",
    });
  }
  const now = options.now ?? Date.now();
  if (!Number.isFinite(now))
    throw validationError("reapStale: now must be a finite epoch ms", { field: "now" });
  return now - olderThanMs;
}

/** Whether `status` is an active run whose lease (or last update) ended before `cutoff`. */
export function isStale(status: HarnessRunStatus, cutoff: number): boolean {
  if (status.status !== "pending" && status.status !== "running") return false;
  return (status.leaseUntil ?? status.updatedAt) < cutoff;
}

/**
 * The record of a reaped run: `failed` with error code `abandoned` (its owner stopped
 * heartbeating), finished (`endedAt`), so the store may evict it like any finished run.
 */
export function abandonedStatus(status: HarnessRunStatus, now: number): HarnessRunStatus {
  const lastSign = status.heartbeatAt ?? status.updatedAt;
  const owner = status.ownerId === undefined ? "its process" : `owner "${status.ownerId}"`;
  const reaped: HarnessRunStatus = {
    ...status,
    status: "failed",
    phase: "done",
    activeToolCalls: [],
    updatedAt: Math.max(now, status.updatedAt),
    endedAt: Math.max(now, status.updatedAt),
    error: {
      name: "TinyAgentsError",
      code: "abandoned",
      message:
        `run "${status.runId}" was abandoned: ${owner} stopped heartbeating (last sign of life at ` +
        `${new Date(lastSign).toISOString()}); recover it from its checkpoint or start it again`,
      details: {
        runId: status.runId,
        lastSignOfLife: lastSign,
        ...(status.ownerId ? { ownerId: status.ownerId } : {}),
      },
    },
  };
  delete reaped.activeModelCall;
  return reaped;
}
