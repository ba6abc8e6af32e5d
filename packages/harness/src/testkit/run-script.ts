import type { Clock, TinyAgentsError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunPolicyInput } from "../agent-loop/run-policy.js";
import type { RunConfig } from "../config/run-config.js";
import { EventSink } from "../events/event-sink.js";
import type { Middleware } from "../middleware/middleware.js";
import { AgentHarness, type AgentHarnessOptions } from "../runtime/agent-harness.js";
import type { AgentInput } from "../runtime/agent-input.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import type { AgentStreamItem } from "../runtime/stream-items.js";
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
  /** Run through `invokeStreaming` instead of `invokeCollectingPartial`. */
  streaming?: boolean;
  /** Extra harness options (`clock` and `ids` default to deterministic ones). */
  harnessOptions?: AgentHarnessOptions<undefined>;
  /** Run config (thread id, caps, deadline, ...); the run id defaults to `run-1`. */
  config?: Partial<RunConfig>;
  /** Cancels the run when it aborts. */
  signal?: AbortSignal;
  /** The application state handed to models, tools and middleware. */
  state?: State;
  modelOptions?: ScriptedModelOptions;
}

/** What {@link runScript} returns. */
export interface ScriptRunResult<State = undefined> {
  /** The run (partial when it failed). */
  run: AgentRun;
  status: HarnessRunStatus;
  /** The run's error, when it failed. */
  error: TinyAgentsError | undefined;
  /** Every event of the run. */
  events: EventRecorder;
  trajectory: Trajectory;
  model: ScriptedModel;
  harness: AgentHarness<State, undefined>;
  /** The harness's clock (a fresh `DeterministicClock` unless `harnessOptions.clock` was given). */
  clock: Clock;
  /** The streamed items (streaming runs only; empty otherwise). */
  items: AgentStreamItem[];
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
 * Builds an {@link AgentHarness} with a {@link ScriptedModel} registered as `"scripted"`, a
 * {@link DeterministicClock} and {@link DeterministicIds} (unless `harnessOptions` brings its
 * own), registers the tools, runs through `invokeCollectingPartial` (or `invokeStreaming`) and
 * never throws for run failures: the error comes back in `error`.
 */
export async function runScript<State = undefined>(
  options: RunScriptOptions<State>,
): Promise<ScriptRunResult<State>> {
  const clock = options.harnessOptions?.clock ?? new DeterministicClock();
  const ids = options.harnessOptions?.ids ?? new DeterministicIds();
  const harness = new AgentHarness<State, undefined>({
    ...options.harnessOptions,
    clock,
    ids,
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });
  const model = new ScriptedModel(options.script, options.modelOptions);
  harness.registerModel("scripted", model);
  for (const t of options.tools ?? []) harness.registerTool(t);
  for (const m of options.middleware ?? []) harness.use(m);

  const runId = options.config?.runId ?? ids.next("run");
  const config: Partial<RunConfig> = { ...options.config, runId };
  const events = new EventRecorder();
  const sink = new EventSink(config.rootRunId ?? runId, { now: () => clock.now() });
  events.attach(sink);
  const contextOptions = {
    events: sink,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  const state = options.state as State;
  const input = options.input ?? "hi";

  const items: AgentStreamItem[] = [];
  let outcome: { run: AgentRun; status: HarnessRunStatus; error?: TinyAgentsError };
  if (options.streaming === true) {
    let last: AgentStreamItem | undefined;
    for await (const item of lowerLayer(harness).invokeStreaming(
      state,
      undefined,
      config,
      input,
      contextOptions,
    )) {
      items.push(item);
      last = item;
    }
    if (last === undefined || last.type === "event") {
      throw new Error("runScript: the stream ended without a completed or failed item");
    }
    outcome = last.type === "failed" ? last : { run: last.run, status: last.status };
  } else {
    outcome = await lowerLayer(harness).invokeCollectingPartial(
      state,
      undefined,
      config,
      input,
      contextOptions,
    );
  }
  return {
    run: outcome.run,
    status: outcome.status,
    error: outcome.error,
    events,
    trajectory: events.trajectory(),
    model,
    harness,
    clock,
    items,
  };
}
