/**
 * `@tinyagents/harness/internal`: the run machinery under the front door, for the project's own
 * packages, fixtures and tests. NOT a public API: no doc page shows it, and it changes without
 * notice. Users run agents with `agent.run` / `agent.stream` / `agent.resume` / `agent.recover` /
 * `agent.callModel` / `agent.asTool` (see `AgentHarness`).
 */

// Loop, run and bookkeeping machinery the root no longer exports (used by the project's own
// packages and tests).
export {
  type CachedCall,
  CHECKPOINT_REASON,
  emitHeartbeat,
  failedModelName,
  heartbeatTimerOf,
  ResponseCacheBinding,
  type ResponseCacheOptions,
  startLiveness,
  type VolatileContext,
} from "../agent-loop/index.js";
export {
  type ControlRequest,
  controlPrecedence,
  DEFAULT_MAX_DEPTH,
  type GraphNodeCall,
  type GraphNodeIdentity,
  type GraphNodeRef,
  type RunContextInit,
  runConfig,
  validateGraphNode,
} from "../context/index.js";
export {
  addCost,
  emptyCost,
  markCostUnknown,
  PRICING_CATALOG,
  PRICING_CATALOG_SOURCE,
} from "../cost/index.js";
export { limitExceeded, runTimeout } from "../errors/index.js";
export { type EventScope, type MiddlewareHook, modelDeltaEvent } from "../events/index.js";
export { type EffectiveLimits, LimitTracker, type RunLimitTracker } from "../limits/index.js";
export { loadHistory } from "../memory/index.js";
export type { ResolvedModelBinding, SkippedCandidate } from "../model-registry/index.js";
export { backoffFor, isRetryable, shouldFallback } from "../retry/index.js";
export type { RunWithStatus } from "../runtime/agent-core.js";
export { type AgentSnapshot, agentSnapshot, type SnapshotSource } from "../runtime/agent-snapshot.js";
export { agentAsTool } from "../runtime/as-tool.js";
export { type ContextDefaults, type ContextOptions, createRunContext } from "../runtime/create-context.js";
export {
  AgentCore,
  checkpointStoreOf,
  defaultRunPolicy,
  isPausedRun,
  mergeRunPolicy,
  normalizeInput,
  SUBAGENT_INPUT_FIELD,
} from "../runtime/index.js";
export { LowerLayer, lowerLayer, type RecoverOptions } from "../runtime/lower-layer.js";
export { type PreparedRun, prepareRun } from "../runtime/prepare-run.js";
export { callModelInContext, startRun, streamRun } from "../runtime/run-engine.js";
export { type ResolvedRunOptions, resolveRunOptions } from "../runtime/run-options.js";
