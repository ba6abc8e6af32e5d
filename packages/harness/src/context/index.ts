export { type ControlRequest, controlPrecedence } from "./control.js";
export { DEFAULT_MAX_DEPTH, type RunConfig, runConfig } from "./run-config.js";
export { RunContext, type RunContextInit } from "./run-context.js";
