import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { validationError } from "@tinyagents/inference";
import type { GraphNodeIdentity } from "../config/graph-node.js";

/** How a node factory names its graph and node (both default to what LangGraph says). */
export interface GraphNodeNaming {
  /** The graph's id in status records and events (default `metadata.graph_id`, else `"langgraph"`). */
  graphId?: string;
  /** The node's name (default LangGraph's `metadata.langgraph_node`: the name given to `addNode`). */
  node?: string;
}

/** Where a node call sits: the harness identity, the run id of the call, and LangGraph's task. */
export interface NodePlace {
  identity: GraphNodeIdentity;
  /** `{node}:{taskId}`: stable across the re-executions of one task (interrupt and resume). */
  runId: string;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? value : undefined;

/**
 * Read a node call's identity from LangGraph's config. The graph run id is, in order:
 * `configurable.run_id` (pass one to `graph.invoke`/`stream` to correlate a run), `metadata.run_id`
 * (LangGraph Platform sets it), else `thread:{thread_id}` (one run per thread), else `task:{taskId}`.
 */
export function nodePlace(config: LangGraphRunnableConfig, naming: GraphNodeNaming): NodePlace {
  const configurable = (config.configurable ?? {}) as Record<string, unknown>;
  const metadata = (config.metadata ?? {}) as Record<string, unknown>;
  const node = naming.node ?? text(metadata.langgraph_node);
  if (node === undefined) {
    throw validationError(
      "cannot tell which graph node this is: LangGraph's config has no metadata.langgraph_node; pass `node` to the node factory",
      { field: "node" },
    );
  }
  const graphId = naming.graphId ?? text(metadata.graph_id) ?? "langgraph";
  const threadId = text(configurable.thread_id);
  const namespace = text(configurable.checkpoint_ns);
  const taskId =
    text(config.executionInfo?.taskId) ?? (namespace === undefined ? undefined : namespace.split(":").at(-1));
  if (taskId === undefined) {
    throw validationError(
      "cannot tell the graph task of this node call (no executionInfo.taskId or checkpoint_ns); call the node from a LangGraph graph",
      { field: "config" },
    );
  }
  const graphRunId =
    text(configurable.run_id) ??
    text(metadata.run_id) ??
    (threadId === undefined ? `task:${taskId}` : `thread:${threadId}`);
  const identity: GraphNodeIdentity = { graphRunId, graphId, node };
  if (threadId !== undefined) identity.threadId = threadId;
  return { identity, runId: `${node}:${taskId}` };
}
