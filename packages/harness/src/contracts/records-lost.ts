import type { ErrorSummary } from "@tinyagents/inference";

/**
 * What a run's observability pipeline (`attachObservability` on the run's event sink) could not
 * store while the run was going: set on the run's result (`result.recordsLost`) after the run
 * waited for its records to be written. The run itself is unaffected (its answer, usage and
 * `stopReason` are as they were), but the journal and status store do not know it as it was:
 * `tinyagents show`, `runs`, the inspector and recovery will see an incomplete or stale run.
 * Plain JSON data.
 */
export interface RecordsLost {
  /** Journal observations lost: a failed write (a full disk, a read-only store) or a full queue. */
  journal: number;
  /** Status saves that failed (the stored status record is stale). */
  status: number;
  /** The last storage error, when a write failed (absent when only a full queue dropped records). */
  error?: ErrorSummary;
}
