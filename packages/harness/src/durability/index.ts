/**
 * `@tinyagents/harness/durability`: what makes a run survive a crash or a pause: checkpoint and
 * paused-run stores, durable contexts, resume and approval signals, leases, run records, reaping of
 * stale runs and recovery. The root re-exports the stores and `DurableContext`.
 */

export type {
  AwaitSignalOptions,
  DurableChildOptions,
  DurableContext,
  DurableStepOptions,
  DurableValue,
} from "../contracts/durable-context.js";
export { callOfStep } from "./call-of-step.js";
export type { RunCheckpoints, ToolIntent } from "./checkpoint-contract.js";
export {
  CHECKPOINTS_NAMESPACE,
  CheckpointStore,
  TOOL_INTENTS_NAMESPACE,
} from "./checkpoint-store.js";
export { claimConflict, journalWriterConflict } from "./durability-errors.js";
export {
  type ApprovalSignal,
  approvalSignalName,
  isApprovalSignal,
  isResumeSignalName,
  type ResumeSignal,
  resumeSignalName,
  validateResumeSignal,
} from "./durable-signals.js";
export { InProcessDurableContext, type InProcessDurableOptions } from "./in-process-durable-context.js";
export type { LeaseValue } from "./lease-key.js";
export type { LiveEntry } from "./live-index.js";
export { type PausedRun, validatePausedRun } from "./paused-run.js";
export { PAUSED_RUNS_NAMESPACE, PausedRunStore } from "./paused-run-store.js";
export { abandonedStatus, isStale, type ReapOptions, reapCutoff } from "./reap-stale.js";
export { type RecoverDurability, takeForRecovery } from "./recover-run.js";
export {
  DEFAULT_LEASE_MS,
  type ResolvedDurability,
  type RunDurability,
  resolveDurability,
} from "./run-durability.js";
export type { RunHold, RunRecordStore } from "./run-hold.js";
export { RunLease } from "./run-lease.js";
export {
  type DurableRunRecord,
  type DurableRunState,
  isRunRecord,
  RUN_RECORD_KIND,
  type TakeMode,
  type TakeRequest,
  takeRecord,
} from "./run-record.js";
export { type StartWithStatus, startStatus } from "./start-status.js";
export {
  type RunStatusSource,
  type StatusCondition,
  type WaitForStatusOptions,
  waitForRunStatus,
} from "./wait-for-status.js";
