import type { PausedRun } from "../durability/paused-run.js";
import type { LoopSession } from "./loop-session.js";

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
  const usedIds = new Set<string>();
  for (const message of p.messages) {
    s.transcript.push(message);
    if (message.role === "assistant") for (const call of message.toolCalls) usedIds.add(call.id);
  }
  s.usedToolCallIds = usedIds;
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
