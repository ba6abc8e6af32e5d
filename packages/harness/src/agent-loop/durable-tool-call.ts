import type { ToolCall } from "@tinyagents/inference";
import type { AnyTool, ToolResult } from "../tool/tool.js";
import { resultSizeBytes } from "../tool/tool-result.js";
import { executeToolCall } from "./execute-tool.js";
import type { LoopSession } from "./loop-session.js";
import { idempotencyKeyOf, onceToolSteps, outcomeUnknownResult, toJson } from "./once-tool-steps.js";
import { insideToolStep } from "./tool-step-calls.js";

/**
 * One admitted tool call of a journaled run (`ctx.journaled`), through the engine's steps:
 * - at-least-once (the default): ONE step `tool:<callId>` (kind `tool`, `idempotencyKey`
 *   `runId:callId`) around the whole call — `wrapToolCall` onion, timeout, events — recording
 *   the `ToolResult`. A recorded call is answered from the recording; one in flight when its
 *   worker died runs again, with the same idempotency key.
 * - `sideEffects: "once"`: `intent:<callId>` then `result:<callId>` (see `onceToolSteps`): a call
 *   whose intent was recorded by a worker that died is answered "outcome unknown", never re-run.
 *
 * - a tool whose work is a child run (`runsChild`: sub-agent tools): called directly, its child
 *   recorded by `durable.child` (see `SubAgent`).
 *
 * Replay rule: a recorded call emits no event (its `tool.*` events were emitted live when it ran).
 */
export function durableToolCall<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
  args: unknown,
): Promise<ToolResult> {
  const run = () => executeToolCall(s, call, tool, args);
  // A sub-agent tool's child run is recorded by `durable.child`: no step around it (no nesting).
  if (tool.runsChild === true) return Promise.resolve().then(run);
  // Otherwise the call runs inside a step: marked, so a child run it starts is refused.
  const inStep = () => insideToolStep(s.ctx, call.id, run);
  if (tool.sideEffects === "once")
    return onceToolSteps(s, call, tool.name, inStep, () => unknownOutcome(s, call, tool));
  const step = s.ctx.durable.step(`tool:${call.id}`, async () => toJson(await inStep()), {
    kind: "tool",
    idempotencyKey: idempotencyKeyOf(s.ctx.runId, call.id),
  });
  return step as unknown as Promise<ToolResult>;
}

/** The outcome-unknown answer, reported like a call that ended at once (`tool.started`, `tool.completed`). */
function unknownOutcome<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  tool: AnyTool<State, Ctx>,
): ToolResult {
  const result = outcomeUnknownResult(call.id, tool.name);
  s.ctx.emit({ type: "tool.started", callId: call.id, toolName: tool.name, arguments: call.arguments });
  s.ctx.emit({
    type: "tool.completed",
    callId: call.id,
    toolName: tool.name,
    durationMs: 0,
    isError: true,
    outputBytes: resultSizeBytes(result),
  });
  return result;
}
