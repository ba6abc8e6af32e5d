import type { PausedRun } from "../contracts/paused-run.js";
import type { ToolResult } from "../contracts/tool-result.js";

/**
 * The intent of a `sideEffects: "once"` tool call: written before the tool runs, completed with
 * its result after. An intent without a result, found by a recovered run, means the process died
 * during the call: the outcome is unknown and the call is never run again.
 */
export interface ToolIntent {
  runId: string;
  callId: string;
  toolName: string;
  startedAt: number;
  result?: ToolResult;
}

/**
 * What the loop needs of a checkpoint store (`CheckpointStore` implements it): save a run's
 * checkpoint, forget it when the run ends, and keep the intents of its "once" tool calls.
 */
export interface RunCheckpoints {
  save(checkpoint: PausedRun): Promise<void>;
  delete(runId: string): Promise<void>;
  intent(runId: string, callId: string): Promise<ToolIntent | undefined>;
  recordIntent(intent: ToolIntent): Promise<void>;
  claim(runId: string): Promise<PausedRun>;
}
