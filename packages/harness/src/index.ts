/**
 * @tinyagents/harness — the agent harness: the model -> tool -> model loop and everything around
 * it. The root holds what a user of the front door needs (`createAgent` and the agent's `run`,
 * `stream`, `resume`, `recover`, `callModel`, `asTool`; `tool`; results, usage and cost; errors;
 * the common middleware, memory, events and stores). Machinery lives behind subpaths named for
 * their concern: `/middleware` (the whole middleware library), `/observability` (journals, sinks,
 * projections, status stores), `/durability` (checkpoints, signals, leases, run records),
 * `/summarization`, `/cache`, `/prompt`, `/structured`, `/tool-calling`, `/store`, `/workspace`,
 * `/handoff`, `/host`, `/run-queue`, `/artifacts`, `/steering`; the testkit is at `/testkit`.
 * test/architecture/root-surface.test.ts keeps the root at 160 names or fewer.
 */

export { type RunOutcome, runText } from "./agent-loop/index.js";
export { type ArtifactRef, ArtifactStore, artifactResult } from "./artifacts/index.js";
export { InMemoryResponseCache, type ResponseCache } from "./cache/index.js";
export type { RunConfig } from "./context/index.js";
export type {
  AgentRun,
  AnyTool,
  HookContext,
  Middleware,
  MiddlewareChanges,
  ModelCallNext,
  RecordsLost,
  RunContext,
  RunStep,
  StopReason,
  Tool,
  ToolCallNext,
  ToolErrorPolicy,
  ToolExecutionContext,
  ToolOutput,
  ToolPolicy,
  ToolReturn,
  ToolSideEffect,
  ToolTimeout,
} from "./contracts/index.js";
// Usage and cost
export {
  type CostTotals,
  estimateCost,
  formatCost,
  formatTotalTokens,
  lookupPricing,
  type ModelPricing,
  PRICING_CATALOG_AS_OF,
  type PricingEntry,
  type PricingOverrides,
  rollUpCost,
} from "./cost/index.js";
// Pause, resume and durability
export {
  CheckpointStore,
  type DurableContext,
  type PausedRun,
  PausedRunStore,
  resumeSignalName,
} from "./durability/index.js";
// Errors
export { cancelled, type LimitName } from "./errors/index.js";
// Events a user subscribes to
export {
  type AgentEvent,
  type AgentEventOf,
  type AgentEventType,
  type EventListener,
  type EventRecord,
  EventSink,
  isModelDeltaEvent,
  type ModelDeltaEvent,
  type ModelRequestDetails,
  type ModelResponseDetails,
  type ToolRecovery,
  type ToolResultDetails,
} from "./events/index.js";
export { largeResultHandoff, type ResultHandoffOptions } from "./handoff/index.js";
export { createRandomIds, type IdGenerator } from "./ids/index.js";
export { DEFAULT_RUN_LIMITS, type LimitHit, type RunLimits } from "./limits/index.js";
// Memory and the common stores
export {
  type ChatHistory,
  InMemoryChatHistory,
  type ShortTermMemory,
  StoreChatHistory,
  type StoreChatHistoryBackend,
} from "./memory/index.js";
// The common middleware (the whole library: @tinyagents/harness/middleware)
export {
  type ApprovalDecision,
  approvalId,
  budgetMiddleware,
  guardrailsMiddleware,
  humanApprovalMiddleware,
  loggingMiddleware,
  modelFallbackMiddleware,
  rateLimitMiddleware,
  redactionMiddleware,
  retryMiddleware,
  timeoutMiddleware,
  toolPolicyMiddleware,
  usageAccountingMiddleware,
} from "./middleware/index.js";
export {
  type ModelRegistration,
  ModelRegistry,
  type ModelSelection,
} from "./model-registry/index.js";
export {
  type AgentObservation,
  AppendLogEventJournal,
  attachObservability,
  type HarnessEventJournal,
  type HarnessStatusStore,
  InMemoryEventJournal,
  InMemoryHarnessStatusStore,
  type ObservabilityHandle,
  type ObservabilityOptions,
} from "./observability/index.js";
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./retry/index.js";
export { RunQueue, type RunQueueOptions } from "./run-queue/index.js";
// The front door: agents, runs, streams, sub-agents, recovery supervision
export {
  AgentHarness,
  type AgentHarnessOptions,
  type AgentInput,
  AgentRunError,
  AgentStream,
  type AgentStreamItem,
  type AsToolOptions,
  type CreateAgentOptions,
  createAgent,
  type DurableRunOptions,
  type DurableRunStore,
  type InvalidArgsPolicy,
  type ModelCallResult,
  type RecoveringAgent,
  type ResponseFormatInput,
  type ResponseFormatOutput,
  type RunLimitOverrides,
  type RunOptions,
  type RunParent,
  type RunPolicy,
  type RunPolicyInput,
  type RunResult,
  type RunStreamItem,
  type StreamResponseOptions,
  SubAgent,
  type SubAgentOptions,
  type SubAgentRunOptions,
  type SubAgentSendOptions,
  SubAgentSession,
  type SubAgentSessionOptions,
  SubAgentTool,
  type SubAgentToolOptions,
  type SuperviseRunsOptions,
  type SupervisionReport,
  type Supervisor,
  startSupervisor,
  superviseRuns,
  type UnknownToolPolicy,
} from "./runtime/index.js";
export type { ChildRunSummary, HarnessRunStatus } from "./status/index.js";
export { type SteeringCommand, SteeringHandle, SteeringPolicy } from "./steering/index.js";
export {
  type AppendLog,
  InMemoryAppendLog,
  InMemoryKeyValueStore,
  InMemoryNamespacedStore,
  type KeyValueStore,
  type NamespacedStore,
} from "./store/index.js";
export {
  parseStructured,
  type StructuredOutputOptions,
  type StructuredSpec,
  type StructuredStrategy,
  structuredResponse,
  validated,
} from "./structured/index.js";
// Tools and the contracts tools and middleware are written against
export {
  type JsonSchema,
  type JsonSchemaToolDefinition,
  type StandardSchemaToolDefinition,
  type ToolDefinitionBase,
  ToolRegistry,
  tool,
} from "./tool/index.js";
// Sandboxing, large results, artifacts, queued runs
export type { WorkspaceDescriptor } from "./workspace/index.js";
