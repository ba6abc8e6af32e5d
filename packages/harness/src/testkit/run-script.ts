import type { Clock, JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunPolicyInput } from "../agent-loop/run-policy.js";
import type { Middleware } from "../middleware/middleware.js";
import type { AgentHarness, AgentHarnessOptions } from "../runtime/agent-harness.js";
import type { AgentInput } from "../runtime/agent-input.js";
import { createAgent } from "../runtime/create-agent.js";
import type { ResponseFormatInput, RunOptions } from "../runtime/run-options.js";
import { AgentRunError, type RunResult } from "../runtime/run-result.js";
import type { RunStreamItem } from "../runtime/run-stream.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { AnyTool } from "../tool/tool.js";
import { DeterministicClock } from "./deterministic-clock.js";
import { DeterministicIds } from "./deterministic-ids.js";
import { EventRecorder } from "./event-recorder.js";
import { ScriptedModel, type ScriptedModelOptions, type ScriptStep } from "./scripted-model.js";
import type { Trajectory } from "./trajectory.js";

/** Options of {@link runScript}. Everything but `script` is optional. */
export interface RunScriptOptions<State = undefined> {
  /** The model's replies, in order (a {@link ScriptedModel} registered as `"scripted"`). */
  script: readonly ScriptStep[];
  tools?: readonly AnyTool<State, undefined>[];
  /** Middleware registered in this order. */
  middleware?: readonly Middleware<State, undefined>[];
  /** The run's input (default `"hi"`). */
  input?: AgentInput;
  policy?: RunPolicyInput;
  instructions?: string;
  /** Run through `agent.stream` instead of `agent.run`. */
  streaming?: boolean;
  /** Extra agent options (`clock` and `ids` default to deterministic ones). */
  harnessOptions?: AgentHarnessOptions<undefined>;
  /**
   * The options of `agent.run` / `agent.stream` (thread id, run id, `limits`, tags, ...); the run
   * id defaults to `run-1` (the first id of the deterministic ids). `onEvent` is called beside
   * the recorder that fills `events`.
   */
  runOptions?: Omit<RunOptions<State, undefined>, "state" | "signal">;
  /** Cancels the run when it aborts. */
  signal?: AbortSignal;
  /** The application state handed to models, tools and middleware. */
  state?: State;
  modelOptions?: ScriptedModelOptions;
}

/** What {@link runScript} returns. */
export interface ScriptRunResult<State = undefined> {
  /**
   * The run (partial when it failed), as the loop left it: the `RunResult` of `agent.run` (or the
   * `run` of its `AgentRunError`) without the `text` and `status` it adds (`status` is below).
   */
  run: AgentRun;
  status: HarnessRunStatus;
  /** The error that failed the run (the `cause` of the `AgentRunError` `agent.run` threw), when it failed. */
  error: TinyAgentsError | undefined;
  /** Every event of the run. */
  events: EventRecorder;
  trajectory: Trajectory;
  model: ScriptedModel;
  harness: AgentHarness<State, undefined>;
  /** The agent's clock (a fresh `DeterministicClock` unless `harnessOptions.clock` was given). */
  clock: Clock;
  /** The items `agent.stream` yielded (streaming runs only; empty otherwise). A failure is in `error`. */
  items: RunStreamItem[];
}

/**
 * Run an agent against a script in one line:
 *
 * ```ts
 * const { run, trajectory } = await runScript({
 *   script: [{ toolCalls: [{ name: "search", arguments: { q: "x" } }] }, "done"],
 *   tools: [FakeTool.returning("search", "found")],
 * });
 * trajectory.assertToolCalled("search", { q: "x" });
 * ```
 *
 * Builds the agent with `createAgent`: a {@link ScriptedModel} registered as `"scripted"`, a
 * {@link DeterministicClock} and {@link DeterministicIds} (unless `harnessOptions` brings its
 * own), the tools and middleware; runs it with `agent.run` (or `agent.stream`) and never throws
 * for run failures: the error comes back in `error`, the partial run in `run`.
 */
export async function runScript<State = undefined>(
  options: RunScriptOptions<State>,
): Promise<ScriptRunResult<State>> {
  const clock = options.harnessOptions?.clock ?? new DeterministicClock();
  const ids = options.harnessOptions?.ids ?? new DeterministicIds();
  const model = new ScriptedModel(options.script, options.modelOptions);
  const agent: AgentHarness<State, undefined> = createAgent<
    State,
    undefined,
    ResponseFormatInput | undefined
  >({
    ...options.harnessOptions,
    clock,
    ids,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    model,
    modelName: "scripted",
    tools: options.tools ?? [],
    middleware: options.middleware ?? [],
  });

  const events = new EventRecorder();
  const { onEvent, ...runOptions } = options.runOptions ?? {};
  const run: RunOptions<State, undefined> = {
    ...runOptions,
    runId: runOptions.runId ?? ids.next("run"),
    state: options.state as State,
    onEvent:
      onEvent === undefined
        ? events.listener
        : (record) => {
            events.listener(record);
            onEvent(record);
          },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const input = options.input ?? "hi";

  const items: RunStreamItem[] = [];
  let outcome: { run: RunResult; error?: TinyAgentsError };
  try {
    if (options.streaming === true) {
      const stream = agent.stream(input, run);
      for await (const item of stream) items.push(item);
      outcome = { run: await stream.result };
    } else {
      outcome = { run: await agent.run(input, run) };
    }
  } catch (error) {
    // A run that failed: its partial run and its own error. A call refused before any run
    // started (an unknown run option, a thread without memory) is not a run: it still throws.
    if (!AgentRunError.isAgentRunError(error)) throw error;
    outcome = { run: error.run, error: error.cause as TinyAgentsError };
  }
  return {
    run: loopRun(outcome.run),
    status: outcome.run.status,
    error: outcome.error,
    events,
    trajectory: events.trajectory(),
    model,
    harness: agent,
    clock,
    items,
  };
}

/** The run as the loop left it: a `RunResult` without the `text` and `status` that `agent.run` adds. */
function loopRun(result: RunResult): AgentRun {
  const { text: _text, status: _status, structured, ...run } = result;
  return structured === undefined ? run : { ...run, structured: structured as JsonValue };
}
