// The one place evals touch the harness's entry points. When `agent.run(input, options)` lands,
// `runAgent` becomes a call to it and `runUsage` reads `run.usage` — nothing else changes.
import type { Usage } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../context/run-config.js";
import type { EventSink } from "../events/event-sink.js";
import type { AgentInput } from "../runtime/agent-input.js";
import type { ContextOptions } from "../runtime/create-context.js";
import type { EvalCase } from "./eval-case.js";

/**
 * What an eval runs: an `AgentHarness` (or a `StructuredAgent` from `withResponseFormat`) — the
 * same object users call. Method syntax on purpose: any `AgentHarness<State, Ctx>` fits.
 */
export interface EvalAgent {
  invokeCollectingPartial(
    state: unknown,
    data: unknown,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<RunOutcome>;
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

/** Run the agent once through its front door; never throws for run failures (they come back in `error`). */
export function runAgent(agent: EvalAgent, input: AgentInput, request: AgentRunRequest): Promise<RunOutcome> {
  const config: Partial<RunConfig> = { runId: request.runId, tags: request.tags, metadata: request.metadata };
  if (request.timeoutMs !== undefined) config.timeoutMs = request.timeoutMs;
  return agent.invokeCollectingPartial(request.state, request.data, config, input, {
    events: request.events,
    signal: request.signal,
  });
}

/** The tokens of a run (sub-agents included). */
export function runUsage(run: AgentRun): Usage {
  return run.usage;
}

/** True when `value` can be run as an agent (as opposed to a factory of agents). */
export function isEvalAgent(value: unknown): value is EvalAgent {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as Partial<EvalAgent>).invokeCollectingPartial === "function"
  );
}
