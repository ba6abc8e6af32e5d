export {
  REDIRECT_PREFIX,
  STEERING_COMMAND_KINDS,
  type SteeringCommand,
  type SteeringCommandKind,
  validateSteeringCommand,
} from "./steering-command.js";
export { type PauseState, SteeringHandle } from "./steering-handle.js";
export { SteeringPolicy } from "./steering-policy.js";
