import type { JsonObject } from "@tinyagents/inference";
import type { GraphNodeIdentity } from "./graph-node.js";

/**
 * Stable identity and policy of one run. Plain JSON data.
 * Caps here override the harness's `RunLimits` for this run only.
 */
export interface RunConfig {
  runId: string;
  threadId?: string;
  tags: string[];
  metadata: JsonObject;
  /** Wall-clock deadline for the whole run, in milliseconds. */
  timeoutMs?: number;
  maxModelCalls?: number;
  maxToolCalls?: number;
  /** Nesting depth: 0 for a top-level run, parent + 1 for a sub-agent. */
  depth: number;
  maxDepth: number;
  parentRunId?: string;
  rootRunId?: string;
  /**
   * Set when a graph runtime runs this call as one of its nodes: the run reports component
   * `graph_node`, and `parentRunId`, `rootRunId` and `threadId` default to the graph's.
   */
  graphNode?: GraphNodeIdentity;
}
