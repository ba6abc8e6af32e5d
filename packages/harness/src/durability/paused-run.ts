import {
  assertJsonValue,
  isJsonObject,
  validateMessages,
  validateToolCall,
  validationError,
} from "@tinyagents/inference";
import { type RunConfig, runConfig } from "../config/run-config.js";
import type { PausedRun } from "../contracts/paused-run.js";

export type { PausedRun } from "../contracts/paused-run.js";

/**
 * Check that `value` (for example, loaded from a store) is a PausedRun this version can resume,
 * and return it typed. Throws a `validation` error naming the first bad field.
 */
export function validatePausedRun(value: unknown): PausedRun {
  if (!isJsonObject(value)) throw bad("", "must be an object (a PausedRun)");
  const v = value as Record<string, unknown>;
  if (v.version !== 1) throw bad("version", `must be 1, got ${JSON.stringify(v.version)}`);
  if (typeof v.runId !== "string" || v.runId === "") throw bad("runId", "must be a non-empty string");
  if (typeof v.reason !== "string") throw bad("reason", "must be a string");
  for (const key of ["pausedAt", "inputStart", "modelCalls", "toolCalls"] as const) {
    const n = v[key];
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw bad(key, "must be a number >= 0");
  }
  if (!isJsonObject(v.config) || v.config.runId !== v.runId) {
    throw bad("config", "must be the run's RunConfig (with the same runId)");
  }
  runConfig(v.config as unknown as RunConfig & { runId: string });
  validateMessages(v.messages, "PausedRun.messages");
  validateMessages(v.heldMessages, "PausedRun.heldMessages");
  if (!Array.isArray(v.pendingToolCalls)) throw bad("pendingToolCalls", "must be an array of tool calls");
  for (const [i, call] of v.pendingToolCalls.entries())
    validateToolCall(call, `PausedRun.pendingToolCalls[${i}]`);
  for (const key of ["usage", "cost"] as const) {
    if (!isJsonObject(v[key])) throw bad(key, "must be an object");
  }
  for (const key of ["steps", "children", "artifacts"] as const) {
    if (!Array.isArray(v[key])) throw bad(key, "must be an array");
  }
  if (
    v.eventOffset !== undefined &&
    !(Number.isSafeInteger(v.eventOffset) && (v.eventOffset as number) >= 0)
  ) {
    throw bad("eventOffset", "must be a non-negative integer");
  }
  if (v.middlewareState !== undefined) {
    if (!isJsonObject(v.middlewareState)) {
      throw bad("middlewareState", "must be an object of JSON values keyed by middleware name");
    }
    assertJsonValue(v.middlewareState, "PausedRun.middlewareState");
  }
  return value as unknown as PausedRun;
}

function bad(field: string, problem: string) {
  const where = field === "" ? "PausedRun" : `PausedRun.${field}`;
  return validationError(`${where} ${problem}; pass the \`paused\` value of an interrupted AgentRun`, {
    field: field || "paused",
  });
}
