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

/**
 * Header of a run's invocation: when the run was started (epoch milliseconds, decimal), set by
 * `RestateAgentClient.start` and by a parent run invoking a child. Restate stores an invocation's
 * headers with it, so every execution of the run (replays included) reads the same value: the
 * run's clock starts there without a journaled step of its own. It is the starter's clock. A run
 * without it (a thread submission, a raw ingress call) reads Restate's clock in one journaled step.
 */
export const STARTED_AT_HEADER = "x-tinyagents-started-at";

/** The start time a run's invocation carries in {@link STARTED_AT_HEADER}, if a usable one. */
export function startedAtHeader(headers: ReadonlyMap<string, string>): number | undefined {
  const text = headers.get(STARTED_AT_HEADER);
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const time = Number(text);
  return Number.isSafeInteger(time) ? time : undefined;
}
