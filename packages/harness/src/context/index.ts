export {
  type GraphNodeCall,
  type GraphNodeIdentity,
  type GraphNodeRef,
  validateGraphNode,
} from "../config/graph-node.js";
export { DEFAULT_MAX_DEPTH, type RunConfig, runConfig } from "../config/run-config.js";
export { type ControlRequest, controlPrecedence } from "./control.js";
export { LiveRunContext, type RunContextInit } from "./run-context.js";
