import { TinyAgentsError } from "@tinyagents/inference";
import { type AgentRun, runText } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { HarnessRunStatus } from "../status/run-status.js";

/**
 * What `agent.run` resolves to (and `agent.stream(...).result`): the finished run — transcript,
 * flat `usage`, `cost`, `stopReason`, `runId`, steps, children — plus its final `text`, the
 * typed `structured` answer and the run's status record. It is a plain object and a valid
 * `AgentRun` (pass `result.paused` back to `agent.run` to resume a paused run).
 *
 * `structured` is `Out` (inferred from the response format) when the run ended with an answer; it
 * is `undefined` while a run is paused (`stopReason: "interrupted"`), when a cap stopped it with a
 * partial answer (`onCap: "stopWithPartial"`), and for an agent without a response format.
 */
export type RunResult<Out = unknown> = Omit<AgentRun, "structured"> & {
  /** The final answer's text ("" when there is none, e.g. a paused run). */
  text: string;
  /** The validated structured answer (see the type's doc for when it is undefined). */
  structured: Out | undefined;
  /** The run's final status record (phase, timings, counters, error). */
  status: HarnessRunStatus;
};

/**
 * How `agent.run` and `agent.stream` fail: a `TinyAgentsError` with the run's own `code`
 * (`timeout`, `cancelled`, `limit_exceeded`, `provider`...) and message, the original error as
 * `cause`, and the PARTIAL run — everything up to the failure, with the tokens and money already
 * spent — as `run`, plus the failed status record. `code` is the code of the error that failed
 * the run, so `err.code === "cancelled"` checks work unchanged.
 */
export class AgentRunError extends TinyAgentsError {
  /** The partial run: transcript so far, usage and cost spent, `stopReason` saying why it ended. */
  readonly run: RunResult;
  readonly status: HarnessRunStatus;

  constructor(error: TinyAgentsError, run: RunResult) {
    super(error.code, error.message, {
      cause: error,
      ...(error.details === undefined ? {} : { details: error.details }),
    });
    this.name = "AgentRunError";
    this.run = run;
    this.status = run.status;
  }

  /** True for an `AgentRunError` from any copy of the package. */
  static isAgentRunError(value: unknown): value is AgentRunError {
    return TinyAgentsError.isInstance(value) && (value as Partial<AgentRunError>).run !== undefined;
  }
}

/** The result of a finished run (a copy of the run's fields plus `text` and `status`). */
export function toRunResult<Out>(run: AgentRun, status: HarnessRunStatus): RunResult<Out> {
  // One copy of the run, then three fields (no intermediate object: this is on every run's path).
  const result = Object.assign({}, run) as unknown as RunResult<Out>;
  result.text = runText(run);
  result.structured = run.structured as Out | undefined;
  result.status = status;
  return result;
}

/** Resolve an outcome the front-door way: the result, or an `AgentRunError` carrying the partial run. */
export function settleOutcome<Out>(outcome: RunOutcome): RunResult<Out> {
  const result = toRunResult<Out>(outcome.run, outcome.status);
  if (outcome.error !== undefined) throw new AgentRunError(outcome.error, result as RunResult);
  return result;
}
