/**
 * @tinyagents/harness/langgraph — tinyagents calls as LangGraph.js nodes: `agentNode` (an agent
 * loop) and `modelNode` (one direct model call) map graph state in and out, run as graph-node
 * calls (status component `graph_node`, the graph run as parent, `graphNode` on every event),
 * carry LangGraph's `thread_id` and abort signal, stream harness events through the graph's
 * `custom` stream mode, and turn a harness pause (human approval, steering pause) into
 * `interrupt()`, continued by `new Command({ resume })`. `tinyagentsState` records each call's
 * usage, cost and resolved model in the graph state; `graphRunTotals` rolls them up.
 *
 * Needs the optional peer dependency `@langchain/langgraph` (^1.7, with its peer
 * `@langchain/core`). The core package never loads it.
 */
export { type AgentNodeOptions, agentNode } from "./agent-node.js";
export {
  type GraphNodeCallSummary,
  type GraphRunTotals,
  graphRunTotals,
  mergeTinyagentsState,
  type TinyagentsGraphState,
  type TinyagentsGraphUpdate,
  tinyagentsState,
} from "./graph-state.js";
export { GraphSteering } from "./graph-steering.js";
export { type ModelNodeOptions, modelNode, type ReuseModelPolicy } from "./model-node.js";
export { type GraphEventChunk, isGraphEventChunk } from "./node-events.js";
export { type GraphNodeNaming, type NodePlace, nodePlace } from "./node-identity.js";
export type { GraphNodeFunction, GraphNodeOptions, NodeUpdate } from "./node-options.js";
export {
  GRAPH_NODE_PAUSES_NAMESPACE,
  type GraphNodePause,
  type GraphNodeResume,
} from "./node-pauses.js";
