export { type ControlRequest, controlPrecedence } from "./control.js";
export {
  type GraphNodeCall,
  type GraphNodeIdentity,
  type GraphNodeRef,
  validateGraphNode,
} from "./graph-node.js";
export { DEFAULT_MAX_DEPTH, type RunConfig, runConfig } from "./run-config.js";
export { RunContext, type RunContextInit } from "./run-context.js";
