/**
 * `@tinyagents/harness/internal`: the run machinery under the front door, for the project's own
 * packages, fixtures and tests. NOT a public API: no doc page shows it, and it changes without
 * notice. Users run agents with `agent.run` / `agent.stream` / `agent.resume` / `agent.recover` /
 * `agent.callModel` / `agent.asTool` (see `AgentHarness`).
 */
export type { RunWithStatus } from "../runtime/agent-core.js";
export { type AgentSnapshot, agentSnapshot, type SnapshotSource } from "../runtime/agent-snapshot.js";
export { agentAsTool } from "../runtime/as-tool.js";
export { type ContextDefaults, type ContextOptions, createRunContext } from "../runtime/create-context.js";
export { LowerLayer, lowerLayer, type RecoverOptions } from "../runtime/lower-layer.js";
export { type PreparedRun, prepareRun } from "../runtime/prepare-run.js";
export { callModelInContext, startRun, streamRun } from "../runtime/run-engine.js";
export { type ResolvedRunOptions, resolveRunOptions } from "../runtime/run-options.js";
