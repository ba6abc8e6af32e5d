/**
 * `@tinyagents/harness/tool`: the building blocks of tools: JSON Schema compilation and validation,
 * Standard Schema conversion, argument normalization, injected arguments, tool names and policies,
 * tool results and timeouts. Define tools with `tool()` from the root.
 */
export { jsonEqual } from "../encoding/json-equal.js";
export {
  assertToolTimeout,
  isStandardSchema,
  type JsonSchemaToolDefinition,
  type StandardSchemaToolDefinition,
  type ToolDefinitionBase,
  tool,
} from "./define-tool.js";
export { extractJsonObject } from "./extract-json.js";
export {
  assertInjectedArguments,
  type InjectedArguments,
  projectInjected,
  withInjectedArguments,
} from "./injected-arguments.js";
export { resolveSchemaRef } from "./json-schema-ref.js";
export {
  assertObjectSchema,
  type CompiledSchema,
  compileSchema,
  type JsonSchema,
  validateAgainstSchema,
} from "./json-schema-validator.js";
export { jsonTypeOf, matchesJsonType } from "./json-type.js";
export { type NormalizedArguments, normalizeToolArguments } from "./normalize-arguments.js";
export { formatIssuePath, formatStandardIssues } from "./standard-issues.js";
export { JSON_SCHEMA_TARGET, type SchemaOwner, standardJsonSchema } from "./standard-json-schema.js";
export { ToolTimeoutSettings } from "./timeout-settings.js";
export type {
  AnyTool,
  ArgsValidation,
  Tool,
  ToolErrorPolicy,
  ToolExecutionContext,
  ToolExecutionSemantics,
  ToolOutput,
  ToolPolicy,
  ToolResult,
  ToolReturn,
  ToolSideEffect,
  ToolTimeout,
} from "./tool.js";
export { assertToolName, isValidToolName, MAX_TOOL_NAME_LENGTH, suggestToolName } from "./tool-name.js";
export { assertToolPolicy, TOOL_SIDE_EFFECTS } from "./tool-policy.js";
export { ToolRegistry } from "./tool-registry.js";
export {
  errorToolResult,
  isToolReturn,
  resultSizeBytes,
  toolResultMessage,
  toToolResult,
} from "./tool-result.js";
