import {
  assertJsonValue,
  isJsonObject,
  validateMessages,
  validateToolCall,
  validationError,
} from "@tinyagents/inference";
import type { LoopSession } from "../agent-loop/loop-session.js";
import { type RunConfig, runConfig } from "../context/run-config.js";
import type { PausedRun } from "../contracts/paused-run.js";

export type { PausedRun } from "../contracts/paused-run.js";

/** Snapshot session `s` as a PausedRun (a deep copy; the session may go on changing). */
export function capturePausedRun<State, Ctx>(s: LoopSession<State, Ctx>, reason: string): PausedRun {
  const { run, ctx } = s;
  const last = s.transcript.at(-1);
  const paused: PausedRun = {
    version: 1,
    runId: run.runId,
    reason,
    pausedAt: ctx.clock.now(),
    config: ctx.config,
    messages: s.transcript,
    inputStart: run.inputStart,
    pendingToolCalls: last?.role === "assistant" ? last.toolCalls : [],
    heldMessages: s.heldMessages ?? [],
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    usage: run.usage,
    cost: run.cost,
    steps: run.steps,
    children: run.children ?? [],
    artifacts: run.artifacts ?? [],
  };
  if (run.threadId !== undefined) paused.threadId = run.threadId;
  if (run.resolvedModel !== undefined) paused.resolvedModel = run.resolvedModel;
  if (s.previousModel !== undefined) paused.previousModel = s.previousModel;
  const middlewareState = s.parts.middleware.saveStates(s.hook);
  if (middlewareState !== undefined) paused.middlewareState = middlewareState;
  return structuredClone(paused);
}

/**
 * Seed a fresh session (built for `paused.config`) with a paused run's state: transcript,
 * counters (the run's caps keep counting from where it stopped), usage, cost, steps, children,
 * artifacts, the last model, and the held messages. Tool-call ids already used are re-derived
 * from the transcript. Then the middleware get their saved per-run state back (`restoreState`),
 * before anything of the resumed run happens. Copies `paused`, never aliases it.
 */
export function restoreSession<State, Ctx>(s: LoopSession<State, Ctx>, paused: PausedRun): void {
  const p = structuredClone(paused);
  const { run, ctx } = s;
  for (const message of p.messages) {
    s.transcript.push(message);
    if (message.role === "assistant") for (const call of message.toolCalls) s.usedToolCallIds.add(call.id);
  }
  run.inputStart = p.inputStart;
  run.modelCalls = p.modelCalls;
  run.toolCalls = p.toolCalls;
  run.usage = p.usage;
  run.cost = p.cost;
  run.steps = p.steps;
  if (p.children.length > 0) run.children = p.children;
  if (p.artifacts.length > 0) run.artifacts = p.artifacts;
  if (p.resolvedModel !== undefined) run.resolvedModel = p.resolvedModel;
  if (p.previousModel !== undefined) s.previousModel = p.previousModel;
  if (p.heldMessages.length > 0) s.heldMessages = p.heldMessages;
  ctx.limits.modelCalls = p.modelCalls;
  ctx.limits.toolCalls = p.toolCalls;
  ctx.steering?.clearPause();
  if (p.eventOffset !== undefined) ctx.events.advanceTo(p.eventOffset);
  if (p.middlewareState !== undefined) s.parts.middleware.restoreStates(s.hook, p.middlewareState);
}

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
