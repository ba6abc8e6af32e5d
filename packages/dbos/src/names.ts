/** The DBOS workflow name of agent `agent` (what a client enqueues by name). */
export function workflowName(agent: string): string {
  return `tinyagents.${agent}`;
}

/** The DBOS message topic of steering commands (`client.steer`). */
export const STEER_TOPIC = "steer";

/**
 * The DBOS workflow event a run sets to the name of the resume signal it waits on while paused
 * (`resume:<runId>/<n>`), and to "" once it goes on: what `client.status` reads as `resumeSignal`.
 */
export const RESUME_EVENT = "tinyagents.resume";

/**
 * The DBOS workflow event where a run keeps every human approval it opened, by approval id:
 * what each approves (`ApprovalWait`) and, once taken, the decision. The client checks a
 * decision against it before sending (see `approval-decisions.ts`).
 */
export const APPROVALS_EVENT = "tinyagents.approvals";

/**
 * The id of the marker workflow a worker runs at launch for each agent it serves: a client
 * refuses to start an agent no worker ever registered (`not_found`) instead of enqueuing a run
 * no worker will dequeue.
 */
export function registryWorkflowId(agent: string): string {
  return `tinyagents.registry/${agent}`;
}
