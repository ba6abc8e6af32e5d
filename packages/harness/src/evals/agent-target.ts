// The one place evals touch the agent: `agent.run(input, options)`, the front door users call.
import { toTinyAgentsError, type Usage } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../config/run-config.js";
import type { EventSink } from "../events/event-sink.js";
import type { AgentInput } from "../runtime/agent-input.js";
import type { RunOptions } from "../runtime/run-options.js";
import { AgentRunError, type RunResult } from "../runtime/run-result.js";
import type { EvalCase } from "./eval-case.js";

/**
 * What an eval runs: any agent with the front door `run(input, options)` — an `AgentHarness`,
 * `createAgent(...)`, `agent.withResponseFormat(schema)` — the same object users call. Method
 * syntax on purpose: any `AgentHarness<State, Ctx, Out>` fits.
 */
export interface EvalAgent {
  run(input: AgentInput, options?: RunOptions<never, never>): Promise<RunResult<unknown>>;
}

/**
 * The agent of an eval: one agent for every case, or a factory called per run (a fresh scripted
 * model per case, a model chosen by the case's metadata).
 */
export type EvalAgentSource =
  | EvalAgent
  | ((evalCase: EvalCase, trial: number) => EvalAgent | Promise<EvalAgent>);

/** What one run of the agent needs besides its input. */
export interface AgentRunRequest {
  runId: string;
  tags: string[];
  metadata: RunConfig["metadata"];
  events: EventSink;
  signal: AbortSignal;
  /** The application state and context data handed to the agent (default undefined). */
  state?: unknown;
  data?: unknown;
  timeoutMs?: number;
}

/**
 * Run the agent once through its front door (`agent.run`); never throws for run failures: a
 * rejected run's `AgentRunError` becomes the outcome's `error` (the run's own error) with the
 * partial run, so a failed case still reports its tokens and cost.
 */
export function runAgent(agent: EvalAgent, input: AgentInput, request: AgentRunRequest): Promise<RunOutcome> {
  const options: RunOptions<unknown, unknown> = {
    runId: request.runId,
    tags: request.tags,
    metadata: request.metadata,
    events: request.events,
    signal: request.signal,
  };
  if (request.state !== undefined) options.state = request.state;
  if (request.data !== undefined) options.context = request.data;
  if (request.timeoutMs !== undefined) options.limits = { timeoutMs: request.timeoutMs };
  return agent.run(input, options as RunOptions<never, never>).then(
    (result) => ({ run: asAgentRun(result), status: result.status }),
    (thrown: unknown) => {
      if (!AgentRunError.isAgentRunError(thrown)) throw thrown;
      const error = toTinyAgentsError(thrown.cause ?? thrown);
      return { run: asAgentRun(thrown.run), status: thrown.status, error };
    },
  );
}

/** A result is an AgentRun whose `structured` is typed by the agent's schema; scorers read it as JSON. */
function asAgentRun(result: RunResult<unknown>): AgentRun {
  return result as Omit<RunResult<unknown>, "structured"> as AgentRun;
}

/** The tokens of a run (sub-agents included). */
export function runUsage(run: AgentRun): Usage {
  return run.usage;
}

/** True when `value` can be run as an agent (as opposed to a factory of agents). */
export function isEvalAgent(value: unknown): value is EvalAgent {
  return (
    typeof value === "object" && value !== null && typeof (value as Partial<EvalAgent>).run === "function"
  );
}
