/**
 * `@tinyagents/harness/steering`: steering a running agent: commands, their validation, pause
 * state. The root re-exports `SteeringHandle`, `SteeringPolicy` and `SteeringCommand`.
 */

export type { RunSteering } from "../contracts/run-steering.js";
export {
  REDIRECT_PREFIX,
  STEERING_COMMAND_KINDS,
  type SteeringCommand,
  type SteeringCommandKind,
  validateSteeringCommand,
} from "./steering-command.js";
export { type PauseState, SteeringHandle } from "./steering-handle.js";
export { SteeringPolicy } from "./steering-policy.js";
