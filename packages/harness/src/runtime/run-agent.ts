import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { PausedRun } from "../durability/paused-run.js";
import type { AgentInput } from "./agent-input.js";
import type { AgentSnapshot } from "./agent-snapshot.js";
import { runChild } from "./child-run.js";
import { type PreparedRun, prepareRun } from "./prepare-run.js";
import { startRun } from "./run-engine.js";
import type { RunOptions } from "./run-options.js";
import type { ChildRunExtras } from "./run-parent.js";

/**
 * `agent.run` below its result: options to context (`prepareRun`), then the loop (`startRun`),
 * or, for a child (the `parent` option, a `SubAgent`), the loop wrapped in the child's events,
 * roll-up and durable step (`runChild`). Resolves to the outcome, a failed run's error in it
 * (the front door settles it into a `RunResult` or an `AgentRunError`; `SubAgent` reads it);
 * rejects only when the run cannot start (bad options, `sub_agent_depth`).
 */
export function runAgent<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  input: AgentInput | PausedRun,
  options: RunOptions<State, Ctx> | undefined,
  extras?: ChildRunExtras,
): Promise<RunOutcome> {
  let run: PreparedRun<State, Ctx>;
  try {
    run = prepareRun(agent, input, options, extras);
  } catch (error) {
    return Promise.reject(error);
  }
  const { state, ctx, messages, resumed, overrides, release, child } = run;
  if (child !== undefined) return runChild(agent, state, ctx, messages, child, release, overrides);
  return startRun(agent, state, ctx, messages, false, resumed, release, overrides);
}
