import type { JsonValue, Message, ResolvedModel, ToolCall, UsageTotals } from "@tinyagents/inference";
import type { ChildRunSummary } from "./child-run-summary.js";
import type { CostTotals } from "./cost-totals.js";
import type { RunConfig } from "./run-config.js";
import type { RunStep } from "./run-step.js";

/**
 * Everything needed to continue an interrupted run, in this process or another: the transcript,
 * the counters, the tool calls the last assistant turn asked for that have not run yet, messages
 * held back for after them, the model that served last, and the run's config. Plain JSON data
 * (`JSON.parse(JSON.stringify(p))` is an equal PausedRun). Continue it with `harness.resume`.
 */
export interface PausedRun {
  version: 1;
  runId: string;
  threadId?: string;
  reason: string;
  /** Epoch ms (run clock) when the run paused. */
  pausedAt: number;
  config: RunConfig;
  /** The transcript so far (history, input, generated; no system prompt). */
  messages: Message[];
  inputStart: number;
  /** Tool calls of the last assistant turn that have not run: resume runs them first. */
  pendingToolCalls: ToolCall[];
  /** Steering messages to append after the pending tool calls' results. */
  heldMessages: Message[];
  modelCalls: number;
  toolCalls: number;
  usage: UsageTotals;
  cost: CostTotals;
  steps: RunStep[];
  children: ChildRunSummary[];
  artifacts: string[];
  resolvedModel?: ResolvedModel;
  /** Registry name of the model that served the last call (for `reusePreviousModel`). */
  previousModel?: string;
  /**
   * Per-run state of the harness's middleware at the pause (their `saveState` values), by
   * middleware name; absent when none saved anything (and in records written before it existed).
   * On resume each registered middleware with a `restoreState` hook gets its entry back; entries
   * of middleware the resuming harness does not have are ignored (and not carried further).
   */
  middlewareState?: Record<string, JsonValue>;
  /**
   * The offset the run tree's next event gets (one past `run.interrupted`). Resume continues
   * the event offsets and ids from here, so a journal of the run tree never holds one offset
   * twice; absent in records written before it existed.
   */
  eventOffset?: number;
}
