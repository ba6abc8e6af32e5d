import { emptyUsageTotals } from "@tinyagents/inference";
import { emptyCost } from "../cost/cost.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { DurableRunRecord } from "./run-record.js";

/**
 * Writes a new run's durable record (compare-and-set of `key`, as `KeyValueStore.compareAndSet`)
 * AND its first status record in ONE transaction: a store whose key-value and status tables live
 * in one database (SQLite, Postgres) gives it to its `checkpoints`, so a durable run's input and
 * its `running` status exist together or not at all. Resolves true when it wrote (both).
 */
export type StartWithStatus = (
  namespace: string,
  key: string,
  expected: undefined,
  next: DurableRunRecord,
  status: HarnessRunStatus,
) => Promise<boolean>;

/**
 * The status record of a run its durable start just took: `running`, owned by the taker until
 * its lease, no calls yet. No epoch: the run's own status saves (which carry it from its first
 * heartbeat on) replace it.
 */
export function startStatus(record: DurableRunRecord, now: number): HarnessRunStatus {
  const config = record.start?.config ?? {};
  const status: HarnessRunStatus = {
    runId: record.runId,
    rootRunId: record.rootRunId,
    component: "agent",
    status: "running",
    phase: "idle",
    modelCalls: 0,
    toolCalls: 0,
    activeToolCalls: [],
    usage: emptyUsageTotals(),
    cost: emptyCost(),
    startedAt: now,
    updatedAt: now,
    ownerId: record.ownerId,
    heartbeatAt: now,
    leaseUntil: record.leaseUntil,
  };
  if (record.parentRunId !== undefined) status.parentRunId = record.parentRunId;
  if (typeof config.threadId === "string") status.threadId = config.threadId;
  if (Array.isArray(config.tags) && config.tags.every((t) => typeof t === "string")) {
    status.tags = config.tags as string[];
  }
  return status;
}
