import { validationError } from "@tinyagents/inference";
import type { ReapOptions } from "../durability/reap-stale.js";
import { assertStorableKey } from "../encoding/storable-key.js";
import type { ExecutionStatus, HarnessRunStatus } from "../status/run-status.js";

/** A query over stored run statuses. All given conditions must hold. */
export interface StatusQuery {
  threadId?: string;
  rootRunId?: string;
  /** Only runs that are still pending or running. */
  active?: boolean;
  /** At most this many records (in `order`). */
  limit?: number;
  /** `oldest` (default): by `startedAt`, then run id; `newest`: the reverse (a runs list's order). */
  order?: "oldest" | "newest";
  /**
   * Only the records after this one in `order` (cursor paging: pass the last record of a page).
   * Stores with an index on (start, run id) answer a page without reading the records before it.
   */
  after?: { startedAt: number; runId: string };
  /** Only root runs (not sub-agent runs: a record whose `rootRunId` is its own `runId`). */
  rootsOnly?: boolean;
}

/**
 * "What is this run doing now?": the latest status record of every run, queryable by thread,
 * by run tree and by liveness. Saving a record replaces the previous one for that run unless it
 * is older (`updatedAt`) or would turn a finished run back into an active one. Implementations
 * bound their size by evicting FINISHED runs only (oldest first): an active run is never evicted.
 */
export interface HarnessStatusStore {
  save(status: HarnessRunStatus): Promise<void>;
  /**
   * Optional group commit: save several runs' statuses as one write (SQLite: one transaction),
   * with `save`'s rules for each. The status writer (`ProjectionSink`) uses it when present.
   */
  saveMany?(statuses: readonly HarnessRunStatus[]): Promise<void>;
  /**
   * True when `save` and `saveMany` have read everything they store from the records by the
   * time they return (SQLite serializes them then), so the caller may change the records right
   * after the call: the status writer then hands over its live records instead of copies.
   */
  readonly snapshotsOnSave?: boolean;
  get(runId: string): Promise<HarnessRunStatus | undefined>;
  list(query?: StatusQuery): Promise<HarnessRunStatus[]>;
  /** Remove a run's record; true when one existed. */
  delete(runId: string): Promise<boolean>;
  /**
   * Repair runs whose process died: every pending or running record whose lease ended (records
   * without a lease: whose last update was) more than `olderThanMs` ago becomes `failed` with
   * error code `abandoned`, finished and so evictable. Returns the records it changed. Every
   * built-in store implements it (memory, key-value/file, SQLite); optional for custom stores.
   */
  reapStale?(options: ReapOptions): Promise<HarnessRunStatus[]>;
}

const ACTIVE: ReadonlySet<ExecutionStatus> = new Set(["pending", "running"]);

/** Whether a run is still going (pending or running). */
export function isActiveStatus(status: ExecutionStatus): boolean {
  return ACTIVE.has(status);
}

/** Whether `next` should replace `current` (see {@link HarnessStatusStore}). */
export function shouldReplaceStatus(
  current: (Pick<HarnessRunStatus, "status" | "updatedAt"> & { epoch?: number | null }) | undefined,
  next: Pick<HarnessRunStatus, "status" | "updatedAt"> & { epoch?: number | undefined },
): boolean {
  if (current === undefined) return true;
  // Fencing: the owner of a later epoch wins, whatever its record says; a lower epoch never does.
  const currentEpoch = current.epoch ?? 0;
  const nextEpoch = next.epoch ?? 0;
  if (nextEpoch !== currentEpoch) return nextEpoch > currentEpoch;
  if (!isActiveStatus(current.status) && isActiveStatus(next.status)) return false;
  return next.updatedAt >= current.updatedAt;
}

/** A predicate for a status query (the `limit` is applied by the caller). */
export function statusFilter(query: StatusQuery): (status: HarnessRunStatus) => boolean {
  if (query.limit !== undefined && (!Number.isInteger(query.limit) || query.limit < 0)) {
    throw validationError(`status query limit must be a non-negative integer, got ${String(query.limit)}`, {
      field: "limit",
    });
  }
  if (query.order !== undefined && query.order !== "oldest" && query.order !== "newest") {
    throw validationError(`status query order must be "oldest" or "newest", got ${String(query.order)}`, {
      field: "order",
    });
  }
  const after = query.after;
  if (after !== undefined && (!Number.isFinite(after.startedAt) || typeof after.runId !== "string")) {
    throw validationError("status query after needs a numeric startedAt and a string runId", {
      field: "after",
    });
  }
  const sign = query.order === "newest" ? -1 : 1;
  return (s) =>
    (query.threadId === undefined || s.threadId === query.threadId) &&
    (query.rootRunId === undefined || s.rootRunId === query.rootRunId) &&
    (query.active === undefined || isActiveStatus(s.status) === query.active) &&
    (query.rootsOnly !== true || s.rootRunId === s.runId) &&
    (after === undefined || sign * compareStatus(s, after) > 0);
}

/** Sort status records in a query's `order` (in place). */
export function sortStatuses(records: HarnessRunStatus[], order: StatusQuery["order"]): HarnessRunStatus[] {
  records.sort(compareStatus);
  return order === "newest" ? records.reverse() : records;
}

/** Order status records by start time, then run id. */
export function compareStatus(
  a: Pick<HarnessRunStatus, "startedAt" | "runId">,
  b: Pick<HarnessRunStatus, "startedAt" | "runId">,
): number {
  return a.startedAt - b.startedAt || (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0);
}

/** Validate a status record enough to store and index it. */
export function validateStatus(status: HarnessRunStatus): void {
  if (
    status === null ||
    typeof status !== "object" ||
    typeof status.runId !== "string" ||
    status.runId === ""
  ) {
    throw validationError("a status record needs a non-empty runId", { field: "runId" });
  }
  assertStorableKey(status.runId, "runId");
}
