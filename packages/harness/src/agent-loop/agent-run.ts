import {
  type JsonValue,
  type Message,
  type ModelResponse,
  type ResolvedModel,
  text,
  type UsageTotals,
} from "@tinyagents/inference";
import type { CostTotals } from "../cost/cost.js";
import type { PausedRun } from "../steering/paused-run.js";
import type { ChildRunSummary } from "../subagent/child-run.js";

/** One model turn of a run and the tool calls it asked for. */
export interface RunStep {
  index: number;
  /** The model call id (`{runId}-model-{n}`). */
  callId: string;
  model: string;
  toolCallIds: string[];
  finishReason?: string;
}

/**
 * Why a run ended. Finished runs: `completed` (a final answer), `stop_with_final` (a control
 * request supplied it), `interrupted` (paused, see `run.paused`), `limit:model_calls` /
 * `limit:tool_calls` (a cap stopped it with a partial answer, `onCap: "stopWithPartial"`).
 * Failed runs (the error says more): `timeout` (a deadline, or a timed-out call the run could not
 * recover from), `cancelled` (the caller's signal, a consumer that stopped reading),
 * `limit:model_calls` / `limit:tool_calls` / `limit:retries` (a cap failed it), `failed`
 * (anything else).
 */
export type StopReason =
  | "completed"
  | "stop_with_final"
  | "interrupted"
  | "limit:model_calls"
  | "limit:tool_calls"
  | "limit:retries"
  | "timeout"
  | "cancelled"
  | "failed";

/**
 * The outcome of a run. Plain JSON data. Partial runs (failed, cancelled) have the same shape:
 * `messages` holds everything up to the failure.
 */
export interface AgentRun {
  runId: string;
  threadId?: string;
  /** The transcript: loaded history, the input, and everything the run added (no system prompt). */
  messages: Message[];
  /** Index in `messages` where this run's input starts (history before it). */
  inputStart: number;
  finalResponse?: ModelResponse;
  /** The parsed structured output, kept apart from the chat messages. */
  structured?: JsonValue;
  /** Tokens of this run AND of its sub-agent runs (see `children`). */
  usage: UsageTotals;
  /** Money spent by this run AND by its sub-agent runs (see `children`). */
  cost: CostTotals;
  /** This run's own model calls, counted when made (a call that failed counts; children's are in `children`). */
  modelCalls: number;
  toolCalls: number;
  steps: RunStep[];
  /** The model that served the last call. */
  resolvedModel?: ResolvedModel;
  stopReason: StopReason;
  /** Sub-agent runs started from this run, with their tree totals (already included above). */
  children?: ChildRunSummary[];
  /** Ids of the artifacts this run's tools produced (stored outside the transcript). */
  artifacts?: string[];
  /** Set when the run was interrupted: pass it to `harness.resume` to continue. */
  paused?: PausedRun;
}

/** The final answer text of a run ("" when it has none). */
export function runText(run: AgentRun): string {
  return text(run.finalResponse?.message);
}
