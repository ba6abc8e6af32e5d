import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { SteeringCommand } from "../steering/steering-command.js";
import { SteeringHandle } from "../steering/steering-handle.js";
import { SteeringPolicy } from "../steering/steering-policy.js";
import { nodePlace } from "./node-identity.js";

/**
 * Steering handles of a graph's node calls, by graph run and node name, so a supervisor node
 * (or anything else holding the graph's config) can steer a child node's running harness call
 * through the ordinary {@link SteeringHandle} and its policy:
 *
 * ```ts
 * const steering = new GraphSteering(new SteeringPolicy(["redirect", "pause", "cancel"]));
 * graph.addNode("worker", agentNode({ harness, steering, ... }));
 * graph.addNode("supervisor", async (state, config) => {
 *   steering.send(config, "worker", { kind: "redirect", instruction: "cite sources" });
 *   return {};
 * });
 * ```
 *
 * Commands sent before the child's call starts wait for its first checkpoint (the handle's
 * contract); a finished call's handle is dropped, so a later call of the node starts clean.
 * Every handle shares this registry's `policy` (fail-closed: the default allows nothing).
 */
export class GraphSteering {
  readonly policy: SteeringPolicy;
  private readonly handles = new Map<string, SteeringHandle>();

  constructor(policy: SteeringPolicy = new SteeringPolicy()) {
    this.policy = policy;
  }

  /** The handle of node `node` in the graph run `config` belongs to (created on first use). */
  handle(config: LangGraphRunnableConfig | string, node: string): SteeringHandle {
    const key = `${graphRunOf(config)}\u0000${node}`;
    let handle = this.handles.get(key);
    if (handle === undefined) {
      handle = new SteeringHandle(this.policy);
      this.handles.set(key, handle);
    }
    return handle;
  }

  /** Queue `command` for node `node` of `config`'s graph run. Throws `validation` when malformed. */
  send(config: LangGraphRunnableConfig | string, node: string, command: SteeringCommand): this {
    this.handle(config, node).send(command);
    return this;
  }

  /** @internal A node call ended: forget its handle unless it is paused (the resume needs it). */
  release(graphRunId: string, node: string): void {
    const key = `${graphRunId}\u0000${node}`;
    if (this.handles.get(key)?.isPaused !== true) this.handles.delete(key);
  }

  /** How many handles are held (finished calls release theirs). */
  get size(): number {
    return this.handles.size;
  }
}

/** The graph run id of a config as the node factories compute it, or the id itself. */
function graphRunOf(config: LangGraphRunnableConfig | string): string {
  if (typeof config === "string") return config;
  // Any node name will do: only the graph run id is read.
  return nodePlace(config, { node: "_" }).identity.graphRunId;
}
