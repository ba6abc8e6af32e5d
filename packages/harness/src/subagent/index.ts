export type { ChildRunSummary } from "./child-run.js";
export {
  SubAgent,
  type SubAgentInvokeOptions,
  type SubAgentOptions,
  type SubAgentParentOptions,
} from "./sub-agent.js";
export { SubAgentSession, type SubAgentSessionOptions } from "./sub-agent-session.js";
export { SUBAGENT_INPUT_FIELD, SubAgentTool, type SubAgentToolOptions } from "./sub-agent-tool.js";
