import { isJsonObject, validationError } from "@tinyagents/inference";
import type { ToolPolicy, ToolSideEffect } from "./tool.js";

/** Every {@link ToolSideEffect}, from harmless to dangerous. */
export const TOOL_SIDE_EFFECTS: readonly ToolSideEffect[] = [
  "none",
  "read",
  "write",
  "destructive",
  "external",
];

/**
 * Throw a `validation` error naming the field unless `policy` is a well-formed {@link ToolPolicy}:
 * an object whose `sideEffects` is one of {@link TOOL_SIDE_EFFECTS}, whose flags are booleans and
 * whose `maxResultBytes` is a non-negative integer.
 */
export function assertToolPolicy(policy: unknown, toolName: string): asserts policy is ToolPolicy {
  const fail = (field: string, problem: string) =>
    validationError(`tool "${toolName}": policy.${field} ${problem}`, {
      field: `policy.${field}`,
      tool: toolName,
    });
  if (!isJsonObject(policy)) {
    throw validationError(`tool "${toolName}": policy must be an object like { sideEffects: "read" }`, {
      field: "policy",
      tool: toolName,
    });
  }
  const { sideEffects, requiresApproval, requiresSandbox, maxResultBytes } = policy;
  if (sideEffects !== undefined && !TOOL_SIDE_EFFECTS.includes(sideEffects as ToolSideEffect)) {
    throw fail(
      "sideEffects",
      `must be one of ${TOOL_SIDE_EFFECTS.join(", ")}; got ${JSON.stringify(sideEffects)}`,
    );
  }
  if (requiresApproval !== undefined && typeof requiresApproval !== "boolean") {
    throw fail("requiresApproval", "must be a boolean");
  }
  if (requiresSandbox !== undefined && typeof requiresSandbox !== "boolean") {
    throw fail("requiresSandbox", "must be a boolean");
  }
  if (
    maxResultBytes !== undefined &&
    (typeof maxResultBytes !== "number" || !Number.isInteger(maxResultBytes) || maxResultBytes < 0)
  ) {
    throw fail("maxResultBytes", `must be a non-negative integer, got ${JSON.stringify(maxResultBytes)}`);
  }
}
