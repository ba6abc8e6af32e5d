// The tool contracts live in contracts/ (they depend on nothing above them); re-exported here.
export type {
  AnyTool,
  ArgsValidation,
  Tool,
  ToolErrorPolicy,
  ToolExecutionSemantics,
  ToolTimeout,
} from "../contracts/tool.js";
export type { ToolExecutionContext } from "../contracts/tool-execution-context.js";
export type { ToolOutput, ToolReturn } from "../contracts/tool-output.js";
export type { ToolPolicy, ToolSideEffect } from "../contracts/tool-policy.js";
export type { ToolResult } from "../contracts/tool-result.js";
