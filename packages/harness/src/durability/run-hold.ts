import type { TinyAgentsError } from "@tinyagents/inference";
import type { RunCheckpoints } from "./checkpoint-contract.js";
import type { PausedRun } from "./paused-run.js";
import type { DurableRunRecord, TakeRequest } from "./run-record.js";

/**
 * A process's hold on one run's durable record (what the loop writes through; `RunLease`
 * implements it): every write is fenced by the owner's epoch, and fails with `conflict` once
 * another process took the run (`lost` then says so).
 */
export interface RunHold extends RunCheckpoints {
  readonly runId: string;
  readonly ownerId: string;
  readonly epoch: number;
  readonly leaseMs: number;
  /** The record as it was taken (what recovery continues from). */
  readonly taken: DurableRunRecord;
  /** Set once a fenced write failed: the run belongs to someone else now. */
  readonly lost: TinyAgentsError | undefined;
  saveCheckpoint(checkpoint: PausedRun, now: number, final?: boolean): Promise<void>;
  pause(paused: PausedRun, now: number): Promise<void>;
  completing(offset: number, now: number): Promise<void>;
  finish(state: "completed" | "failed", outcome: DurableRunRecord["outcome"], now: number): Promise<void>;
  renew(now: number): Promise<void>;
  release(now: number): Promise<void>;
}

/** Where runs' durable records live (`CheckpointStore` implements it): takes and reads. */
export interface RunRecordStore extends RunCheckpoints {
  take(request: TakeRequest): Promise<RunHold>;
  record(runId: string): Promise<DurableRunRecord | undefined>;
}
