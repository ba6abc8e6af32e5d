/** The DBOS workflow name of agent `agent` (what a client enqueues by name). */
export function workflowName(agent: string): string {
  return `tinyagents.${agent}`;
}
