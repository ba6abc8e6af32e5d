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
