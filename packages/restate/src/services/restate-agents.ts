import type { VirtualObjectDefinition, WorkflowDefinition } from "@restatedev/restate-sdk";
import { validationError } from "@tinyagents/inference";
import { checkAgentName } from "../naming/naming.js";
import { agentWorkflow } from "./agent-workflow.js";
import type { RestateAgentsOptions } from "./agents-options.js";
import { threadObject } from "./thread-object.js";

/** The Restate services `restateAgents` defines: bind them all to an endpoint. */
export type RestateAgentServices = Array<
  WorkflowDefinition<string, unknown> | VirtualObjectDefinition<string, unknown>
>;

/**
 * Expose harnesses as Restate services, for a worker to serve:
 *
 * ```ts
 * const services = restateAgents({ agents: { support: () => supportAgent }, events: () => ({ journal }) });
 * await restate.serve({ services, port: 9080 }); // then register the deployment with the admin API
 * ```
 *
 * One workflow per agent (`tinyagents.agent.<name>`, keyed by run id: see `agentWorkflow`) and
 * one Virtual Object per thread (`tinyagents.thread`, keyed by thread id: see `threadObject`).
 * Every worker serves the same definitions; Restate routes each invocation to a live one.
 * Throws `validation` for an agent name Restate cannot use or an empty agent map.
 */
export function restateAgents(options: RestateAgentsOptions): RestateAgentServices {
  const names = Object.keys(options?.agents ?? {});
  if (names.length === 0) {
    throw validationError("restateAgents needs at least one agent: { agents: { name: () => agent } }", {
      field: "agents",
    });
  }
  for (const name of names) checkAgentName(name);
  return [
    ...names.map((name) =>
      agentWorkflow(name, options.agents[name] as NonNullable<(typeof options.agents)[string]>, options),
    ),
    threadObject(new Set(names), options.servicePrefix),
  ];
}
