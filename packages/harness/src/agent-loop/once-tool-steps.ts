import type { JsonValue, ToolCall } from "@tinyagents/inference";
import type { ToolResult } from "../tool/tool.js";
import { errorToolResult } from "../tool/tool-result.js";
import type { LoopSession } from "./loop-session.js";

/** The idempotency key of tool call `callId` of run `runId`. */
export function idempotencyKeyOf(runId: string, callId: string): string {
  return `${runId}:${callId}`;
}

/**
 * The answer of a `"once"` call whose intent was recorded but whose result was not: the process
 * died during the call, its outcome is unknown, and it is never run again.
 */
export function outcomeUnknownResult(callId: string, toolName: string): ToolResult {
  return errorToolResult(
    callId,
    toolName,
    `Error: the outcome of tool "${toolName}" (call ${callId}) is unknown: the process died during the call ` +
      'and the tool runs at most once (sideEffects: "once"), so it was not run again. Check its effect before retrying.',
    0,
  );
}

/**
 * THE at-most-once mechanism of a `sideEffects: "once"` tool call, for every durable context: an
 * `intent:<callId>` step, then a `result:<callId>` step (both carry the idempotency key).
 *
 * The intent step's function runs only on the first execution (a replay returns its recording
 * without calling it): so when the result step has to execute, `run` is called only if THIS
 * execution recorded the intent. An intent recorded by an earlier worker without a result means
 * that worker died during the call: the result is `unknown()` (the outcome-unknown error result),
 * recorded, and the tool never runs a second time. A recorded result is returned as is.
 *
 * In process, `InProcessDurableContext` keeps the two steps as the call's `ToolIntent` in the
 * run's checkpoint store (issue 17's recovery); on an engine they are journaled steps.
 *
 * On an engine whose model steps double as intents (`DurableContext.modelStepIsIntent`, Restate)
 * and when the run journaled nothing between the model step that proposed the call and the tool
 * phase (`s.onceIntentByModelStep` set), there is no intent step: the model step is the intent.
 * The crash window, step by step: the tool starts only after `await` of the model step returned,
 * i.e. after the engine STORED that step. So if an earlier execution started the tool, the model
 * step is stored and this execution replays it (its function does not run): the call is answered
 * "outcome unknown", never run again. If this execution executed the model step, no earlier one
 * got past it, so none started the tool: it runs. A worker that dies after the model step was
 * stored but before the tool started also yields "outcome unknown" (as a death between the
 * intent step and the tool did): at most once, never twice. The choice between the two forms is
 * the same on every execution (the same operations, in the same order, precede the phase).
 */
export async function onceToolSteps<State, Ctx>(
  s: LoopSession<State, Ctx>,
  call: ToolCall,
  toolName: string,
  run: () => ToolResult | Promise<ToolResult>,
  unknown: () => ToolResult,
): Promise<ToolResult> {
  const { ctx } = s;
  const durable = ctx.durable;
  const idempotencyKey = idempotencyKeyOf(ctx.runId, call.id);
  const byModelStep = s.onceIntentByModelStep;
  if (ctx.journaled && byModelStep !== undefined) {
    const result = await durable.step(
      `result:${call.id}`,
      async () => toJson(byModelStep ? await run() : unknown()),
      { kind: "result", idempotencyKey },
    );
    return result as unknown as ToolResult;
  }
  let recordedHere = false;
  await durable.step(
    `intent:${call.id}`,
    async () => {
      recordedHere = true;
      return { runId: ctx.runId, callId: call.id, toolName, startedAt: ctx.clock.now() };
    },
    { kind: "intent", idempotencyKey },
  );
  const result = await durable.step(
    `result:${call.id}`,
    async () => toJson(recordedHere ? await run() : unknown()),
    { kind: "result", idempotencyKey },
  );
  return result as unknown as ToolResult;
}

/** A tool result as the plain JSON a step records (drops `undefined` keys). */
export function toJson(result: ToolResult): JsonValue {
  return JSON.parse(JSON.stringify(result)) as JsonValue;
}
