/**
 * The shared contracts of the harness, its bottom layer: the types that the loop, tools,
 * middleware, structured output, sub-agents, steering and caches exchange. Types only (no runtime
 * code), and they import nothing of the harness (only `@tinyagents/inference` and each other), so
 * every folder may use them. What a tool or hook sees of a run (`ctx.run`) is the `RunContext`
 * interface, and the services it names are interfaces too (`RunStores`, `RunEventSink`,
 * `RunLimitTracker`, `RunSteering`, `RunWorkspace`); the classes that implement them live above
 * (`context/`, `store/`, `events/`, `limits/`, `steering/`, `workspace/`). The plain records the
 * contracts name (`RunConfig`, `AgentEvent`, `PausedRun`, `ToolResult`, `CostTotals`, ...) are
 * declared here, and the folders they came from re-export them under the same name. Checked by
 * test/architecture/layering.test.ts (types only, no harness import) and folder-layers.test.ts.
 */

export type { AgentRun } from "./agent-run.js";
export type { ChildRunSummary } from "./child-run-summary.js";
export type {
  ApprovalWait,
  AwaitSignalOptions,
  DurableChildOptions,
  DurableContext,
  DurableStepOptions,
  DurableValue,
} from "./durable-context.js";
export type { HookContext, ToolLookup } from "./hook-context.js";
export type {
  Middleware,
  MiddlewareChanges,
  ModelCallNext,
  ToolCallNext,
  ToolProgress,
} from "./middleware.js";
export type { PausedRun } from "./paused-run.js";
export type { RecordsLost } from "./records-lost.js";
export type { RunConfig } from "./run-config.js";
export type { RunContext } from "./run-context.js";
export type { RunEventSink } from "./run-event-sink.js";
export type { RunLimitTracker } from "./run-limits.js";
export type { RunSteering } from "./run-steering.js";
export type { RunStep } from "./run-step.js";
export type { RunStores } from "./run-stores.js";
export type { RunWorkspace } from "./run-workspace.js";
export type { StopReason } from "./stop-reason.js";
export type { AnyTool, ArgsValidation, Tool, ToolErrorPolicy, ToolTimeout } from "./tool.js";
export type { ToolExecutionContext } from "./tool-execution-context.js";
export type { ToolOutput, ToolReturn } from "./tool-output.js";
export type { ToolPolicy, ToolSideEffect } from "./tool-policy.js";
export type { ToolResult } from "./tool-result.js";
