export {
  defaultRunPolicy,
  type InvalidArgsPolicy,
  mergeRunPolicy,
  type RunPolicy,
  type RunPolicyInput,
  type UnknownToolPolicy,
} from "../agent-loop/run-policy.js";
export { AgentCore, type AgentHarnessOptions } from "./agent-core.js";
export { AgentHarness, type ModelCallResult } from "./agent-harness.js";
export { type AgentInput, normalizeInput } from "./agent-input.js";
export type { AsToolOptions } from "./as-tool.js";
export { type CreateAgentOptions, createAgent, type ResponseFormatOutput } from "./create-agent.js";
export { checkpointStoreOf, type DurableRunOptions, type DurableRunStore } from "./durable-run-options.js";
export {
  isPausedRun,
  type ResponseFormatInput,
  type RunLimitOverrides,
  type RunOptions,
} from "./run-options.js";
export type { RunParent } from "./run-parent.js";
export { AgentRunError, type RunResult } from "./run-result.js";
export { AgentStream, type RunStreamItem, type StreamResponseOptions } from "./run-stream.js";
export type { AgentStreamItem } from "./stream-items.js";
export {
  SubAgent,
  type SubAgentOptions,
  type SubAgentRunOptions,
} from "./sub-agent.js";
export {
  type SubAgentSendOptions,
  SubAgentSession,
  type SubAgentSessionOptions,
} from "./sub-agent-session.js";
export { SUBAGENT_INPUT_FIELD, SubAgentTool, type SubAgentToolOptions } from "./sub-agent-tool.js";
export {
  type RecoveringAgent,
  type SuperviseRunsOptions,
  type SupervisionReport,
  type Supervisor,
  startSupervisor,
  superviseRuns,
} from "./supervise-runs.js";
