/**
 * `@tinyagents/restate`: run tinyagents harnesses as Restate workflows (durable steps, approvals
 * and steering as durable promises, one Virtual Object per thread) and drive them with a typed
 * client. Importing this entry installs a `Promise.withResolvers` fallback on Node 20 (the Restate
 * SDK needs it), only when the runtime has none. See docs/scale-out/restate.md.
 */
import "./compat/install.js";

export {
  type ApproveOptions,
  type DecisionOptions,
  type QueuedRun,
  RestateAgentClient,
  type RestateAgentClientOptions,
  type StartedRun,
  type StartOptions,
} from "./client/restate-agent-client.js";
export type { EventStreamOptions } from "./client/tail-journal.js";
export type { StatusCondition, WaitForStatusOptions } from "./client/wait-for-status.js";
export {
  installPromiseWithResolvers,
  type PromiseResolvers,
  promiseWithResolvers,
} from "./compat/promise-with-resolvers.js";
export {
  DEFAULT_MAX_STEP_BYTES,
  journaledBytes,
  RESTATE_MESSAGE_SIZE_LIMIT_BYTES,
} from "./context/journal-limits.js";
export {
  RestateDurableContext,
  type RestateDurableOptions,
  type StepRetryPolicy,
} from "./context/restate-durable-context.js";
export {
  fromRestateFailure,
  isRetryableStepError,
  RETRYABLE_STEP_CODES,
  toRestateFailure,
} from "./context/step-failure.js";
export { type AgentEndpoint, type ListenAgentsOptions, listenAgents } from "./endpoint/listen-agents.js";
export { isLive, ReplayAwareEventSink } from "./events/replay-aware-sink.js";
export { agentWorkflowName, SERVICE_PREFIX, STARTED_AT_HEADER, threadObjectName } from "./naming/naming.js";
export { agentWorkflow } from "./services/agent-workflow.js";
export type { AgentFactory, RestateAgentsOptions, RunIdentity } from "./services/agents-options.js";
export { type RestateAgentServices, restateAgents } from "./services/restate-agents.js";
export type {
  ApprovalDecision,
  RestateRunOutcome,
  RestateRunPhase,
  RestateRunRequest,
  RestateRunStatus,
  SignalRequest,
  SteerReceipt,
  SteerRequest,
  ThreadSubmission,
} from "./services/run-protocol.js";
export { MAX_STEERING_COMMANDS } from "./services/steering-inbox.js";
export { threadObject } from "./services/thread-object.js";
