/**
 * @tinyagents/harness — the agent harness: the model -> tool -> model loop and everything
 * around it. The testkit lives at `@tinyagents/harness/testkit`.
 */

export * from "./agent-loop/index.js";
// Artifacts, handoff, host hooks, run queue
export * from "./artifacts/index.js";
// Context engineering: prompt templates and builder, prompt/response caching, trimming,
// summarization and compression, structured output
export * from "./cache/index.js";
// Run identity and per-run dependencies
export * from "./context/index.js";
export * from "./cost/index.js";
export * from "./durability/index.js";
export * from "./errors/index.js";
// Events and status
export * from "./events/index.js";
export * from "./handoff/index.js";
export * from "./host/index.js";
export * from "./ids/index.js";
// Limits, retry, cost
export * from "./limits/index.js";
// Memory and stores
export * from "./memory/index.js";
// Middleware
export * from "./middleware/index.js";
// Models
export * from "./model-registry/index.js";
// Journals, status stores, projections, sinks, latency metrics
export * from "./observability/index.js";
export * from "./prompt/index.js";
export * from "./retry/index.js";
export * from "./run-queue/index.js";
// The harness and its entry points
export * from "./runtime/index.js";
export * from "./status/index.js";
// Sub-agents, steering, workspace sandbox
export * from "./steering/index.js";
export * from "./store/index.js";
export * from "./structured/index.js";
export * from "./summarization/index.js";
// Tools
export * from "./tool/index.js";
export * from "./tool-calling/index.js";
export * from "./workspace/index.js";
