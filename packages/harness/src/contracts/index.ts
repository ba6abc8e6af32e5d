/**
 * The shared contracts of the harness: the types that the loop, tools, middleware, structured
 * output, sub-agents, steering and caches exchange. Types only (no runtime code). The contracts
 * name the run context (`ctx.run`), so they sit just above it and the run plumbing it is built
 * from (`context/`, `durability/`, `events/`, `status/`, `config/`, ...); every feature folder
 * (tool/, middleware/, agent-loop/, ...) sits above them. Records the run plumbing itself needs
 * (`PausedRun`, `ToolResult`, `DurableContext`, `ChildRunSummary`, `RunStep`, `RecordsLost`)
 * live below, in durability/, status/ and events/, and are re-exported here. Checked by
 * test/architecture/layering.test.ts (types only) and folder-layers.test.ts (the layers of
 * test/architecture/folder-layers.json).
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
export type { RunContext } from "./run-context.js";
export type { RunStep } from "./run-step.js";
export type { StopReason } from "./stop-reason.js";
export type { AnyTool, ArgsValidation, Tool, ToolErrorPolicy, ToolTimeout } from "./tool.js";
export type { ToolExecutionContext } from "./tool-execution-context.js";
export type { ToolOutput, ToolReturn } from "./tool-output.js";
export type { ToolPolicy, ToolSideEffect } from "./tool-policy.js";
export type { ToolResult } from "./tool-result.js";
