export {
  AgentHarness,
  type AgentHarnessOptions,
  type AgentStreamItem,
  type RunWithStatus,
} from "./agent-harness.js";
export { type AgentInput, normalizeInput } from "./agent-input.js";
export type { ContextOptions } from "./create-context.js";
export {
  defaultRunPolicy,
  type InvalidArgsPolicy,
  mergeRunPolicy,
  type RunPolicy,
  type RunPolicyInput,
  type UnknownToolPolicy,
} from "./run-policy.js";
