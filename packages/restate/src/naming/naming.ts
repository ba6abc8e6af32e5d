import { validationError } from "@tinyagents/inference";

/** Prefix of every Restate service this package defines (`tinyagents.agent.<name>`, `tinyagents.thread`). */
export const SERVICE_PREFIX = "tinyagents";

const AGENT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** Throw `validation` unless `name` can name an agent (and so a Restate service). */
export function checkAgentName(name: string): string {
  if (typeof name !== "string" || !AGENT_NAME.test(name)) {
    throw validationError(
      `agent name ${JSON.stringify(name)} is not usable as a Restate service name: use a letter, then letters, digits, "_" or "-" (at most 64)`,
      { field: "agents" },
    );
  }
  return name;
}

/** The Restate workflow that runs agent `agent`, keyed by run id. */
export function agentWorkflowName(agent: string, prefix = SERVICE_PREFIX): string {
  return `${prefix}.agent.${agent}`;
}

/** The Restate Virtual Object that runs a thread's runs one at a time, keyed by thread id. */
export function threadObjectName(prefix = SERVICE_PREFIX): string {
  return `${prefix}.thread`;
}

/** The durable promise that carries steering command number `n` of a run. */
export function steeringPromiseName(n: number): string {
  return `steer:${n}`;
}
