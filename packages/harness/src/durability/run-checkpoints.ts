import type { LoopSession } from "../agent-loop/loop-session.js";
import type { AnyTool, ToolResult } from "../contracts/index.js";
import { capturePausedRun } from "../steering/paused-run.js";
import { errorToolResult } from "../tool/tool-result.js";

/** The `PausedRun.reason` of a checkpoint. */
export const CHECKPOINT_REASON = "checkpoint";

/**
 * Save the run's checkpoint (a no-op without `durability.checkpoints`): called by the loop at
 * its safe boundaries — a model response recorded, a tool batch finished. The events it covers
 * are made durable first (`durability.flush`), so recovery never continues from a state whose
 * events the journal lost; its `eventOffset` is where the recovered run's events continue.
 */
export async function saveCheckpoint<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const durability = s.ctx.durability;
  if (durability?.checkpoints === undefined) return;
  const checkpoint = capturePausedRun(s, CHECKPOINT_REASON);
  checkpoint.eventOffset = s.ctx.events.offset;
  if (durability.flush !== undefined) await durability.flush();
  await durability.checkpoints.save(checkpoint);
}

/** The run ended (completed, failed, paused): its checkpoint and tool intents are deleted. */
export async function dropCheckpoint<State, Ctx>(s: LoopSession<State, Ctx>): Promise<void> {
  const store = s.ctx.durability?.checkpoints;
  if (store !== undefined) await store.delete(s.run.runId);
}

/**
 * Run a `sideEffects: "once"` tool call at most once (with a checkpoint store; otherwise just
 * `run()`): an intent is recorded before the call and completed with its result after. A call
 * whose intent already exists (a recovered run reaching it again) is not run: a completed
 * intent answers with its recorded result, an open one with an error result saying the outcome
 * is unknown because the process died during the call.
 */
export async function runOnce<State, Ctx>(
  s: LoopSession<State, Ctx>,
  callId: string,
  tool: AnyTool<State, Ctx>,
  run: () => ToolResult | Promise<ToolResult>,
): Promise<ToolResult> {
  const store = s.ctx.durability?.checkpoints;
  if (store === undefined) return run();
  const runId = s.run.runId;
  const earlier = await store.intent(runId, callId);
  if (earlier?.result !== undefined) return earlier.result;
  if (earlier !== undefined) {
    return errorToolResult(
      callId,
      tool.name,
      `Error: the outcome of tool "${tool.name}" (call ${callId}) is unknown: the process died during the call ` +
        'and the tool runs at most once (sideEffects: "once"), so it was not run again. Check its effect before retrying.',
      0,
    );
  }
  const intent = { runId, callId, toolName: tool.name, startedAt: s.ctx.clock.now() };
  await store.recordIntent(intent);
  const result = await run();
  await store.recordIntent({ ...intent, result });
  return result;
}
