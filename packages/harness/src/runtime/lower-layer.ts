import type { ModelRequest, ModelResponse } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import type { RunConfig } from "../config/run-config.js";
import { noop } from "../context/abort-hub.js";
import type { LiveRunContext } from "../context/run-context.js";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import type { RecoverDurability } from "../durability/recover-run.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { RunWithStatus } from "./agent-core.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { type AgentSnapshot, agentSnapshot, type SnapshotSource } from "./agent-snapshot.js";
import { type ContextOptions, contextFromOptions } from "./create-context.js";
import { callModelInContext, startRun, streamRun, takeForRecover } from "./run-engine.js";
import type { AgentStreamItem } from "./stream-items.js";

/** Options of `recover`: a run's options, with the checkpoint store it was saved in. */
export type RecoverOptions = ContextOptions & { durability: RecoverDurability };

/**
 * The internal lower layer of an agent: positional entry points over the same machinery as
 * `agent.run` / `agent.stream` (`run-engine.ts`), for code that builds RunContexts itself
 * (fixtures, tests) or wants the outcome without a throw
 * (`...CollectingPartial`). Not part of the public API: reach it with {@link lowerLayer} from
 * `@tinyagents/harness/internal`; users call `agent.run(input, options)`.
 */
export class LowerLayer<State = unknown, Ctx = undefined> {
  constructor(private readonly agent: SnapshotSource<State, Ctx>) {}

  private get snapshot(): AgentSnapshot<State, Ctx> {
    return this.agent[agentSnapshot]();
  }

  /** Build a RunContext for the `...InContext` entry points. */
  createContext(config: Partial<RunConfig>, data: Ctx, options: ContextOptions = {}): LiveRunContext<Ctx> {
    return contextFromOptions(this.snapshot.defaults, config, data, options);
  }

  /** The finished run; throws the run's error (see `invokeCollectingPartial`). */
  invoke(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<AgentRun> {
    // `.then` rather than nested async functions: each suspended async frame costs ~0.5 KB per
    // in-flight run, and thousands of runs can be in flight.
    return this.invokeCollectingPartial(state, data, config, input, options).then(unwrapRun);
  }

  /** `invoke` with a generated run id and the default context data. */
  invokeDefault(state: State, input: AgentInput, options?: ContextOptions): Promise<AgentRun> {
    return this.invoke(state, this.snapshot.defaultData(), {}, input, options);
  }

  /** `invoke`, also returning the final status record. */
  invokeWithStatus(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<RunWithStatus> {
    return this.invokeCollectingPartial(state, data, config, input, options).then(unwrap);
  }

  /** Run in a caller-built context (shared sink, signal, stores, depth). */
  async invokeInContext(state: State, ctx: LiveRunContext<Ctx>, input: AgentInput): Promise<AgentRun> {
    return (await this.invokeInContextWithStatus(state, ctx, input)).run;
  }

  async invokeInContextWithStatus(
    state: State,
    ctx: LiveRunContext<Ctx>,
    input: AgentInput,
  ): Promise<RunWithStatus> {
    return unwrap(await this.invokeInContextCollectingPartial(state, ctx, input));
  }

  /** Never throws for run failures: returns the partial run, the status and the error. */
  invokeCollectingPartial(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): Promise<RunOutcome> {
    let messages: ReturnType<typeof normalizeInput>;
    let ctx: LiveRunContext<Ctx>;
    const agent = this.snapshot;
    try {
      messages = normalizeInput(input);
      ctx = contextFromOptions(agent.defaults, config, data, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return startRun(agent, state, ctx, messages, false);
  }

  /**
   * `invokeInContext` that never throws for run failures: the partial run, status and error come
   * back in the outcome. Throws only when the run cannot start: `sub_agent_depth` (depth over
   * `maxDepth`) or bad input.
   */
  invokeInContextCollectingPartial(
    state: State,
    ctx: LiveRunContext<Ctx>,
    input: AgentInput,
  ): Promise<RunOutcome> {
    let messages: ReturnType<typeof normalizeInput>;
    try {
      messages = normalizeInput(input);
    } catch (error) {
      return Promise.reject(error);
    }
    return startRun(this.snapshot, state, ctx, messages, ctx.streamsDeltas);
  }

  /**
   * Continue an interrupted run from its `PausedRun`. The run keeps its run id, config,
   * transcript and counters. Front door: `agent.run(paused, options)` / `agent.resume`.
   */
  async resume(state: State, data: Ctx, paused: PausedRun, options?: ContextOptions): Promise<AgentRun> {
    return unwrap(await this.resumeCollectingPartial(state, data, paused, options)).run;
  }

  /** `resume` that never throws for run failures (see `invokeCollectingPartial`). */
  async resumeCollectingPartial(
    state: State,
    data: Ctx,
    paused: PausedRun,
    options?: ContextOptions,
  ): Promise<RunOutcome> {
    const checked = validatePausedRun(paused);
    const agent = this.snapshot;
    const ctx = contextFromOptions(agent.defaults, checked.config, data, options);
    return startRun(agent, state, ctx, [], false, checked);
  }

  /**
   * Continue a run whose process died, from its last checkpoint (front door:
   * `agent.recover(runId, options)`, which documents the fencing and replay rules).
   */
  async recover(state: State, data: Ctx, runId: string, options: RecoverOptions): Promise<AgentRun> {
    return unwrap(await this.recoverCollectingPartial(state, data, runId, options)).run;
  }

  /** `recover` that never throws for run failures (a refused take still rejects). */
  async recoverCollectingPartial(
    state: State,
    data: Ctx,
    runId: string,
    options: RecoverOptions,
  ): Promise<RunOutcome> {
    const agent = this.snapshot;
    const { ctx, input, paused } = await takeForRecover(
      agent,
      runId,
      data,
      options,
      options.durability,
      options.durable,
    );
    return startRun(agent, state, ctx, input, false, paused);
  }

  /**
   * `resume`, streaming: every event of the continued run as it happens (model deltas
   * included), then one `completed` or `failed` item. A malformed `PausedRun` throws
   * `validation` here, before anything runs.
   */
  resumeStreaming(
    state: State,
    data: Ctx,
    paused: PausedRun,
    options?: ContextOptions,
  ): AsyncIterable<AgentStreamItem> {
    const checked = validatePausedRun(paused);
    return {
      [Symbol.asyncIterator]: () => {
        const agent = this.snapshot;
        const ctx = contextFromOptions(agent.defaults, checked.config, data, options);
        return streamRun(agent, state, ctx, [], noop, checked);
      },
    };
  }

  /**
   * Every event as it happens (model deltas included), then one `completed` or `failed` item
   * carrying the run. The run starts when iteration starts; breaking out of the loop cancels it.
   */
  invokeStreaming(
    state: State,
    data: Ctx,
    config: Partial<RunConfig>,
    input: AgentInput,
    options?: ContextOptions,
  ): AsyncIterable<AgentStreamItem> {
    const messages = normalizeInput(input);
    return {
      [Symbol.asyncIterator]: () => {
        const agent = this.snapshot;
        const ctx = contextFromOptions(agent.defaults, config, data, options);
        return streamRun(agent, state, ctx, messages, noop);
      },
    };
  }

  invokeStreamingDefault(
    state: State,
    input: AgentInput,
    options?: ContextOptions,
  ): AsyncIterable<AgentStreamItem> {
    return this.invokeStreaming(state, this.snapshot.defaultData(), {}, input, options);
  }

  invokeStreamingInContext(
    state: State,
    ctx: LiveRunContext<Ctx>,
    input: AgentInput,
  ): AsyncIterable<AgentStreamItem> {
    const messages = normalizeInput(input);
    return { [Symbol.asyncIterator]: () => streamRun(this.snapshot, state, ctx, messages, noop) };
  }

  /** One model call (front door: `agent.callModel(request, options)`). */
  async callModel(
    state: State,
    request: ModelRequest,
    config: Partial<RunConfig> = {},
    options?: ContextOptions,
  ): Promise<ModelResponse> {
    return (await this.callModelWithStatus(state, request, config, options)).response;
  }

  callModelWithStatus(
    state: State,
    request: ModelRequest,
    config: Partial<RunConfig> = {},
    options?: ContextOptions,
  ): Promise<{ response: ModelResponse; status: HarnessRunStatus }> {
    const agent = this.snapshot;
    let ctx: LiveRunContext<Ctx>;
    try {
      ctx = contextFromOptions(agent.defaults, config, agent.defaultData(), options);
    } catch (error) {
      return Promise.reject(error);
    }
    return callModelInContext(agent, state, ctx, request);
  }
}

/**
 * The internal lower layer of `agent` (see {@link LowerLayer}). Cheap: one small object per
 * call, reading the agent's current registration on every entry point.
 */
export function lowerLayer<State, Ctx>(agent: SnapshotSource<State, Ctx>): LowerLayer<State, Ctx> {
  return new LowerLayer(agent);
}

function unwrap(outcome: RunOutcome): RunWithStatus {
  if (outcome.error !== undefined) throw outcome.error;
  return { run: outcome.run, status: outcome.status };
}

function unwrapRun(outcome: RunOutcome): AgentRun {
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.run;
}
