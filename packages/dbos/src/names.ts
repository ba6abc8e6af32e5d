/** The DBOS workflow name of agent `agent` (what a client enqueues by name). */
export function workflowName(agent: string): string {
  return `tinyagents.${agent}`;
}

/** The DBOS message topic of steering commands (`client.steer`). */
export const STEER_TOPIC = "steer";
