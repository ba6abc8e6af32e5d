import type { JsonValue, Message, ModelResponse, ResolvedModel, UsageTotals } from "@tinyagents/inference";
import type { ChildRunSummary } from "./child-run-summary.js";
import type { CostTotals } from "./cost-totals.js";
import type { PausedRun } from "./paused-run.js";
import type { RecordsLost } from "./records-lost.js";
import type { RunStep } from "./run-step.js";
import type { StopReason } from "./stop-reason.js";

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
  /**
   * Set when the journal or status store attached to the run's event sink could not store all
   * of its records (a full disk...): the run went as reported, but its stored record is incomplete.
   */
  recordsLost?: RecordsLost;
}
