// Taking over a dead executor's workflows is `DBOSExecutor.recoverPendingWorkflows`, which the
// open-source SDK 5.x reaches only through its `internal/dbos` export (the admin HTTP server that
// used to expose it was removed in 5.x; DBOS Conductor is the hosted way). Kept in this one file
// so a change of that internal surface breaks one place, and takeover.test covers it.
import internalDbos from "@dbos-inc/dbos-sdk/internal/dbos";

/** The handle DBOS returns per recovered workflow (only its id is used). */
export interface RecoveredWorkflow {
  readonly workflowID: string;
}

/** The part of this process's DBOS executor that re-enqueues another executor's pending work. */
export interface RecoveringExecutor {
  recoverPendingWorkflows(executorIDs: string[]): Promise<RecoveredWorkflow[]>;
}

/** This process's launched DBOS executor. */
export async function loadExecutor(): Promise<RecoveringExecutor> {
  return internalDbos.getExecutor() as RecoveringExecutor;
}
