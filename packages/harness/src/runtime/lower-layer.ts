import {
  type Message,
  type ModelRequest,
  type ModelResponse,
  validateModelRequest,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { RunOutcome } from "../agent-loop/run-loop.js";
import { noop } from "../context/abort-hub.js";
import type { RunConfig } from "../context/run-config.js";
import type { RunContext } from "../context/run-context.js";
import { type RecoverDurability, takeForRecovery } from "../durability/recover-run.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { type PausedRun, validatePausedRun } from "../steering/paused-run.js";
import { AgentCore, type RunWithStatus } from "./agent-core.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { callModelOnce } from "./call-model.js";
import { type ContextOptions, createRunContext } from "./create-context.js";
import { openSession } from "./run-session.js";
import type { AgentStreamItem } from "./stream-items.js";

/** Options of `recover`: a run's options, with the checkpoint store it was saved in. */
export type RecoverOptions = ContextOptions & { durability: RecoverDurability };

/**
 * The lower layer: positional entry points over the same loop as `run` / `stream`, for callers that
 * build RunContexts themselves (sub-agents, graph nodes, queues) or want the outcome without a
 * throw (`...CollectingPartial`). Each is a thin alias of `runInContext`.
 */
export class AgentLowerLayer<State = unknown, Ctx = undefined> extends AgentCore<State, Ctx> {
  // ---- the lower layer: positional entry points ----------------------------------------------

  /** Lower layer of `run`: the finished run; throws the run's error (see `invokeCollectingPartial`). */
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
    return this.invoke(state, this.defaultData(), {}, input, options);
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
  async invokeInContext(state: State, ctx: RunContext<Ctx>, input: AgentInput): Promise<AgentRun> {
    return (await this.invokeInContextWithStatus(state, ctx, input)).run;
  }

  async invokeInContextWithStatus(
    state: State,
    ctx: RunContext<Ctx>,
    input: AgentInput,
  ): Promise<RunWithStatus> {
    return unwrap(await this.runInContext(state, ctx, normalizeInput(input), ctx.streamsDeltas));
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
    let created: ReturnType<typeof createRunContext<Ctx>>;
    try {
      messages = normalizeInput(input);
      created = createRunContext(this.contextDefaults(), config, data, options);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.runInContext(state, created.ctx, messages, false, undefined, created.release);
  }

  /**
   * `invokeInContext` that never throws for run failures: the partial run, status and error come
   * back in the outcome (a sub-agent uses it so a failed child's usage still rolls up). Throws
   * only when the run cannot start: `sub_agent_depth` (depth over `maxDepth`) or bad input.
   */
  invokeInContextCollectingPartial(
    state: State,
    ctx: RunContext<Ctx>,
    input: AgentInput,
  ): Promise<RunOutcome> {
    return this.runInContext(state, ctx, normalizeInput(input), ctx.streamsDeltas);
  }

  /**
   * Continue an interrupted run from its `PausedRun` (`run.paused`, possibly loaded from a
   * store by another process and another harness instance with the same models and tools).
   * The run keeps its run id, config, transcript and counters: pending tool calls run first,
   * then the loop goes on as if it had never stopped. Throws the run's error like `invoke`;
   * a run paused again returns with `stopReason: "interrupted"` and a new `paused`.
   * Front door: `agent.run(paused, options)`.
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
    const { ctx, release } = createRunContext(this.contextDefaults(), checked.config, data, options);
    return this.runInContext(state, ctx, [], false, checked, release);
  }

  /**
   * Continue a run whose process died, from its last checkpoint (the run was started with
   * `durability.checkpoints`; pass the same store here). The run is taken in one compare-and-set
   * that bumps its fencing epoch: only a run whose owner's lease lapsed (or that the caller owns)
   * can be taken, so of concurrent recoverers exactly one proceeds (`conflict` for the others),
   * and a live owner is never robbed (`conflict`). A finished, paused or child run is refused
   * too. A model call that was in flight is issued again, unless the final response was
   * checkpointed (the run then completes with no model call); tool calls whose results were not
   * checkpointed run again (`sideEffects: "once"` ones never: the model gets an "outcome unknown"
   * error result). Give it `events` from `continueEventSink` so the journal continues. See
   * docs/durability.md.
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
    const { ctx, release, input, paused } = await this.takeForRecover(runId, data, options);
    return this.runInContext(state, ctx, input, false, paused, release);
  }

  /**
   * Take run `runId` for recovery (see `takeForRecovery`) and build its context: from its
   * checkpoint (a resumed run) or, when it died before its first checkpoint, from its recorded
   * input. `config` applies over the recorded config (front-door options).
   */
  protected async takeForRecover(
    runId: string,
    data: Ctx,
    options: ContextOptions,
    config: Partial<RunConfig> = {},
  ): Promise<{ ctx: RunContext<Ctx>; release: () => void; input: Message[]; paused: PausedRun | undefined }> {
    const clock = options?.clock ?? this.contextDefaults().clock;
    const lease = await takeForRecovery(runId, options?.durability, clock.now());
    const taken = lease.taken;
    let created: ReturnType<typeof createRunContext<Ctx>>;
    let paused: PausedRun | undefined;
    try {
      paused = taken.checkpoint === undefined ? undefined : validatePausedRun(taken.checkpoint);
      const recorded = paused?.config ?? (taken.start?.config as Partial<RunConfig>);
      created = createRunContext(this.contextDefaults(), { ...recorded, ...config, runId }, data, options);
    } catch (error) {
      // A setup error (bad options) before the run started: give the run back at once.
      await lease.release(clock.now()).catch(() => undefined);
      throw error;
    }
    const durability = created.ctx.durability;
    if (durability !== undefined) durability.lease = lease;
    const input = (paused === undefined ? (taken.start?.input ?? []) : []) as Message[];
    return { ctx: created.ctx, release: created.release, input, paused };
  }

  /**
   * `resume`, streaming: every event of the continued run as it happens (model deltas
   * included), then one `completed` or `failed` item — the `invokeStreaming` contract. A
   * malformed `PausedRun` throws `validation` here, before anything runs.
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
        const { ctx, release } = createRunContext(this.contextDefaults(), checked.config, data, options);
        return this.streamRun(state, ctx, [], release, checked);
      },
    };
  }

  /**
   * Lower layer of `stream`: every event as it happens (model deltas included), then one
   * `completed` or `failed` item carrying the run. The run starts when iteration starts;
   * breaking out of the loop cancels it.
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
        const { ctx, release } = createRunContext(this.contextDefaults(), config, data, options);
        return this.streamRun(state, ctx, messages, release);
      },
    };
  }

  invokeStreamingDefault(
    state: State,
    input: AgentInput,
    options?: ContextOptions,
  ): AsyncIterable<AgentStreamItem> {
    return this.invokeStreaming(state, this.defaultData(), {}, input, options);
  }

  invokeStreamingInContext(
    state: State,
    ctx: RunContext<Ctx>,
    input: AgentInput,
  ): AsyncIterable<AgentStreamItem> {
    const messages = normalizeInput(input);
    return { [Symbol.asyncIterator]: () => this.streamRun(state, ctx, messages, noop) };
  }

  // ---- direct model call ----------------------------------------------------------------------

  /**
   * One model call through the same machinery as the loop: model resolution, middleware,
   * retry/fallback, usage and cost, events, and its own status record (component `model_call`).
   */
  async callModel(
    state: State,
    request: ModelRequest,
    config: Partial<RunConfig> = {},
    options?: ContextOptions,
  ): Promise<ModelResponse> {
    return (await this.callModelWithStatus(state, request, config, options)).response;
  }

  async callModelWithStatus(
    state: State,
    request: ModelRequest,
    config: Partial<RunConfig> = {},
    options?: ContextOptions,
  ): Promise<{ response: ModelResponse; status: HarnessRunStatus }> {
    validateModelRequest(request);
    const { ctx, release } = createRunContext(this.contextDefaults(), config, this.defaultData(), options);
    try {
      return await callModelOnce(
        openSession(this.parts(), this.tools, state, ctx, false, "model_call"),
        request,
      );
    } finally {
      release();
    }
  }
}

function unwrap(outcome: RunOutcome): RunWithStatus {
  if (outcome.error !== undefined) throw outcome.error;
  return { run: outcome.run, status: outcome.status };
}

function unwrapRun(outcome: RunOutcome): AgentRun {
  if (outcome.error !== undefined) throw outcome.error;
  return outcome.run;
}
