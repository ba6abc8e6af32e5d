import type {
  AgentInput,
  ChildRunSummary,
  CostTotals,
  DurableContext,
  EventRecord,
  EventSink,
  RunResult,
  SteeringHandle,
  StopReason,
} from "@tinyagents/harness";
import type { ErrorSummary, JsonValue, Message, ResolvedModel, UsageTotals } from "@tinyagents/inference";

/** What a DBOS agent workflow takes (its one argument, stored as the workflow's input). */
export interface DbosRunPayload {
  input: AgentInput;
  /** The conversation: runs of one thread run one at a time, in the order they were started. */
  threadId?: string;
  /**
   * Set when the run is a sub-agent's child workflow: it then returns the whole run (the
   * `AgentRun` the parent's sub-agent rolls up), not a {@link DbosRunResult}.
   */
  child?: boolean;
}

/**
 * What a DBOS agent workflow returns (stored as the workflow's output): the final transcript,
 * usage, cost and resolved model of the run. A run that failed is returned too, with `error`.
 */
export interface DbosRunResult {
  runId: string;
  threadId?: string;
  stopReason: StopReason;
  /** The final answer's text ("" when there is none). */
  text: string;
  messages: Message[];
  usage: UsageTotals;
  cost: CostTotals;
  modelCalls: number;
  toolCalls: number;
  resolvedModel?: ResolvedModel;
  structured?: JsonValue;
  /** Sub-agent runs it started (their totals are included above). */
  children?: ChildRunSummary[];
  /** Why the run failed (its `AgentRunError` summary); absent for a run that ended normally. */
  error?: ErrorSummary;
}

/**
 * What an agent needs to be run by DBOS: the harness's `run` (an `AgentHarness` fits). The
 * workflow passes the run id, thread, the durable context and the live event listener.
 */
export interface DurableAgent {
  run(
    input: AgentInput,
    options: {
      runId: string;
      threadId?: string;
      durable: DurableContext;
      onEvent?: (record: EventRecord) => void;
      events?: EventSink;
      steering?: SteeringHandle;
      /** Aborted when the worker shuts down while the run is in flight (see `DbosAgents.shutdown`). */
      signal?: AbortSignal;
    },
  ): Promise<RunResult>;
}

/** The JSON result of a finished (or failed) run. */
export function toDbosRunResult(run: RunResult, error?: ErrorSummary): DbosRunResult {
  const result: DbosRunResult = {
    runId: run.runId,
    stopReason: run.stopReason,
    text: run.text,
    messages: run.messages,
    usage: run.usage,
    cost: run.cost,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
  };
  if (run.threadId !== undefined) result.threadId = run.threadId;
  if (run.resolvedModel !== undefined) result.resolvedModel = run.resolvedModel;
  if (run.structured !== undefined) result.structured = run.structured as JsonValue;
  if (run.children !== undefined) result.children = run.children;
  if (error !== undefined) result.error = error;
  return result;
}
