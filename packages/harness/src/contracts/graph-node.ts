/**
 * Where a harness call sits in a graph run: set `RunConfig.graphNode` when a graph runtime
 * (LangGraph.js, or any other) starts an agent run or a direct model call as one of its nodes.
 * Plain JSON data. The run then reports component `graph_node`, its parent and root run id
 * default to `graphRunId`, its thread id defaults to the graph's, and every event of the run
 * carries a {@link GraphNodeRef}, so one journal shows the graph run with its node calls nested.
 */
export interface GraphNodeIdentity {
  /** The graph run the node belongs to (the run's parent and root, unless set explicitly). */
  graphRunId: string;
  /** Which graph: a stable name of the compiled graph (e.g. `"support-bot"`). */
  graphId: string;
  /** The node's name in the graph. */
  node: string;
  /** The thread (conversation, checkpoint lineage) the graph runs on. */
  threadId?: string;
}

/** Which kind of harness call a graph node made. */
export type GraphNodeCall = "agent" | "model_call";

/**
 * The graph-node part of a status record and of every event record of a node's call: which graph,
 * which node, and whether the node ran an agent loop or a direct model call.
 */
export interface GraphNodeRef {
  graphId: string;
  node: string;
  call: GraphNodeCall;
}
