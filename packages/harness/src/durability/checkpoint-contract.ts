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
 * Where the intents of `"once"` tool calls are kept: the run's `RunLease` (fenced: a process that
 * lost the run cannot record anything) or, outside a run, a `CheckpointStore`.
 */
export interface RunCheckpoints {
  intent(runId: string, callId: string): Promise<ToolIntent | undefined>;
  recordIntent(intent: ToolIntent): Promise<void>;
}
