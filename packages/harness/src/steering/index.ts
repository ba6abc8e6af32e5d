export { type PausedRun, validatePausedRun } from "./paused-run.js";
export { PAUSED_RUNS_NAMESPACE, PausedRunStore } from "./paused-run-store.js";
export {
  REDIRECT_PREFIX,
  STEERING_COMMAND_KINDS,
  type SteeringCommand,
  type SteeringCommandKind,
  validateSteeringCommand,
} from "./steering-command.js";
export { type PauseState, SteeringHandle } from "./steering-handle.js";
export { SteeringPolicy } from "./steering-policy.js";
