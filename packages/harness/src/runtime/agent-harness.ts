import type { StandardSchemaV1 } from "@standard-schema/spec";
import { type JsonObject, type JsonValue, type ResponseFormat, validationError } from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import { noop } from "../context/abort-hub.js";
import type { RunContext } from "../context/run-context.js";
import { refusal } from "../durability/run-record.js";
import { type PausedRun, validatePausedRun } from "../steering/paused-run.js";
import { nameCollision } from "../structured/prepared-structured.js";
import {
  type StructuredOutputOptions,
  type StructuredSpec,
  structuredSpec,
} from "../structured/structured-spec.js";
import type { Tool } from "../tool/tool.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { type AsToolOptions, agentAsTool } from "./as-tool.js";
import { type ContextOptions, createRunContext } from "./create-context.js";
import { AgentLowerLayer, type RecoverOptions } from "./lower-layer.js";
import { isPausedRun, type RunOptions, resolveRunOptions } from "./run-options.js";
import { type RunResult, settleOutcome } from "./run-result.js";
import { type RunOverrides, runModel } from "./run-session.js";
import { AgentStream } from "./run-stream.js";
import { streamItems } from "./stream-items.js";

export type { AgentHarnessOptions, RunWithStatus } from "./agent-core.js";

/** What `begin` hands the loop: a run's state, context, input and overrides. */
interface Begun<State, Ctx> {
  state: State;
  ctx: RunContext<Ctx>;
  messages: ReturnType<typeof normalizeInput>;
  resumed: PausedRun | undefined;
  overrides: RunOverrides<State>;
  /** Detaches `onEvent` when the run ends. */
  release: () => void;
}

/** Options with a Standard Schema response format: the result's `structured` is its output type. */
type WithSchema<State, Ctx, S> = RunOptions<State, Ctx> & { responseFormat: S };
type WithJsonFormat<State, Ctx> = RunOptions<State, Ctx> & { responseFormat: JsonObject | ResponseFormat };

/**
 * The agent: models, tools, middleware and policy, and the entry points that run the
 * model -> tool -> model loop. Every entry point runs the same loop (`executeRun`).
 *
 * The front door is `run(input, options)` and `stream(input, options)` (and `asTool`, in
 * `createAgent`'s docs). The positional `invoke*` / `resume*` methods are the lower layer they are
 * built on, kept for callers that build RunContexts themselves (sub-agents, graph nodes, evals).
 *
 * `State` is the caller's application state handed to models, tools and middleware; `Ctx` is the
 * per-run context data carried on the RunContext; `Out` the type of the structured answer.
 */
export class AgentHarness<State = unknown, Ctx = undefined, Out = unknown> extends AgentLowerLayer<
  State,
  Ctx
> {
  /**
   * This agent, asking for structured output matching `schema` (a Standard Schema such as zod 4,
   * a raw JSON Schema, or a `ResponseFormat`): `run` / `stream` results carry the validated answer
   * typed as the schema's output in `structured`; every other entry point (resume, sub-agents,
   * `asTool`, status) works the same.
   *
   * ```ts
   * const result = await agent.withResponseFormat(z.object({ city: z.string() })).run("...");
   * result.structured?.city; // string
   * ```
   *
   * It returns a live view: models, tools, middleware and policy changes on this agent apply to
   * it (and this agent itself keeps its own response format). Throws `validation` for an
   * unusable schema or a name that collides with a registered tool.
   */
  withResponseFormat<S extends StandardSchemaV1>(
    schema: S,
    options?: StructuredOutputOptions,
  ): AgentHarness<State, Ctx, StandardSchemaV1.InferOutput<S>>;
  withResponseFormat(
    schema: JsonObject | ResponseFormat,
    options?: StructuredOutputOptions,
  ): AgentHarness<State, Ctx, JsonValue>;
  withResponseFormat<T>(
    schema: StandardSchemaV1 | JsonObject | ResponseFormat,
    options: StructuredOutputOptions = {},
  ): AgentHarness<State, Ctx, T> {
    const spec = structuredSpec(schema as JsonObject, options) as StructuredSpec<unknown>;
    if (this.tools.has(spec.name)) throw nameCollision(spec.name);
    const view = Object.create(this) as AgentHarness<State, Ctx, T>;
    view.structuredSpec = spec;
    return view;
  }

  /** The agent's response format, if it has one. */
  get responseFormat(): StructuredSpec<Out> | undefined {
    return this.structuredSpec as StructuredSpec<Out> | undefined;
  }

  // ---- the front door ------------------------------------------------------------------------

  /**
   * Run the agent on `input` (a prompt, a message, messages — or a `PausedRun` to resume it) and
   * resolve to the {@link RunResult}. A failed run rejects with an `AgentRunError`: the run's
   * error code and message, and the partial run (transcript, usage and cost spent) as `err.run`.
   * A paused run resolves with `stopReason: "interrupted"` and `result.paused`.
   */
  run<S extends StandardSchemaV1>(
    input: AgentInput | PausedRun,
    options: WithSchema<State, Ctx, S>,
  ): Promise<RunResult<StandardSchemaV1.InferOutput<S>>>;
  run(input: AgentInput | PausedRun, options: WithJsonFormat<State, Ctx>): Promise<RunResult<JsonValue>>;
  run(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<Out>>;
  run(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<unknown>> {
    let started: Begun<State, Ctx>;
    try {
      started = this.begin(input, options);
    } catch (error) {
      return Promise.reject(error);
    }
    const { state, ctx, messages, resumed, overrides, release } = started;
    return this.runInContext(state, ctx, messages, false, resumed, release, overrides).then(settleOutcome);
  }

  /**
   * Run the agent, streaming: see {@link AgentStream} (typed items, `result`, `textStream`,
   * `toReadableStream()`, `toResponse()`). The run starts on first use; bad options throw here.
   */
  stream<S extends StandardSchemaV1>(
    input: AgentInput | PausedRun,
    options: WithSchema<State, Ctx, S>,
  ): AgentStream<StandardSchemaV1.InferOutput<S>>;
  stream(input: AgentInput | PausedRun, options: WithJsonFormat<State, Ctx>): AgentStream<JsonValue>;
  stream(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): AgentStream<Out>;
  stream<T>(input: AgentInput | PausedRun, options?: RunOptions<State, Ctx>): AgentStream<T> {
    // Validate now (a typo in the options throws at the call), build the context on first use.
    resolveRunOptions(options);
    this.requireMemoryForThread(options);
    if (!isPausedRun(input)) normalizeInput(input);
    return new AgentStream<T>(() => {
      const { state, ctx, messages, resumed, overrides, release } = this.begin(input, options);
      return streamItems(
        ctx,
        () => this.runInContext(state, ctx, messages, true, resumed, noop, overrides),
        (error) => this.notStarted(state, ctx, error),
        release,
      );
    });
  }

  /**
   * Continue a checkpointed run whose process died, from the front door: `options` are the run's
   * own (`durable: { store, ownerId, ... }` required; `events` from `continueEventSink` continues
   * its journal). The run is taken in one compare-and-set that bumps its fencing epoch: only when
   * its owner's lease lapsed (or the caller is that owner), so of concurrent recoverers exactly one
   * proceeds and a live owner is never robbed. Rejects at once, executing nothing, with `conflict`
   * naming the run when it is live, unknown, finished, paused (resume it) or a child run. A run
   * whose final response was checkpointed completes with no model or tool call; otherwise the
   * model call in flight is issued again and unrecorded tool calls run again (`"once"` tools
   * never: "outcome unknown"). Resolves like `run`.
   */
  override recover(runId: string, options: RunOptions<State, Ctx>): Promise<RunResult<Out>>;
  /** Lower layer of `recover` (positional; see `AgentLowerLayer.recover`). */
  override recover(state: State, data: Ctx, runId: string, options: RecoverOptions): Promise<AgentRun>;
  override recover(...args: unknown[]): Promise<unknown> {
    if (args.length > 2) return super.recover(...(args as [State, Ctx, string, RecoverOptions]));
    return this.recoverRun(args[0] as string, args[1] as RunOptions<State, Ctx>);
  }

  /**
   * Continue a paused run from the front door: `target` is its run id (its paused record is read
   * from `options.durable.store`) or its `PausedRun`; `options` are the run's own. With a durable
   * store the resume takes the run in one compare-and-set: of concurrent resumers exactly one
   * proceeds; the others, and a resume of a run that is no longer paused, reject with `conflict`
   * naming the run, executing nothing. Resolves like `run`.
   */
  override resume(target: string | PausedRun, options?: RunOptions<State, Ctx>): Promise<RunResult<Out>>;
  /** Lower layer of `resume` (positional; see `AgentLowerLayer.resume`). */
  override resume(state: State, data: Ctx, paused: PausedRun, options?: ContextOptions): Promise<AgentRun>;
  override resume(...args: unknown[]): Promise<unknown> {
    if (args.length > 2) return super.resume(...(args as [State, Ctx, PausedRun, ContextOptions?]));
    return this.resumeRun(args[0] as string | PausedRun, args[1] as RunOptions<State, Ctx> | undefined);
  }

  private async recoverRun(runId: string, options: RunOptions<State, Ctx>): Promise<RunResult<unknown>> {
    const o = resolveRunOptions<State, Ctx>(options);
    this.requireMemoryForThread(options);
    if (o.context.durability === undefined) {
      throw validationError("recover needs options.durable: { store, ownerId?, leaseMs?, ... }", {
        field: "durable",
      });
    }
    const data = (o.hasData ? o.data : this.defaultData()) as Ctx;
    const overrides = this.overridesOf(o);
    const { ctx, release, input, paused } = await this.takeForRecover(runId, data, o.context, o.config);
    const unsubscribe = o.onEvent === undefined ? noop : ctx.events.subscribe(o.onEvent);
    const done = () => {
      unsubscribe();
      release();
    };
    return this.runInContext(o.state, ctx, input, false, paused, done, overrides).then(settleOutcome);
  }

  private async resumeRun(
    target: string | PausedRun,
    options: RunOptions<State, Ctx> | undefined,
  ): Promise<RunResult<unknown>> {
    if (typeof target !== "string") return this.run(target, options);
    const durability = resolveRunOptions(options).context.durability;
    if (durability?.checkpoints === undefined) {
      throw validationError("resume by run id needs options.durable: { store, ... } (where the run paused)", {
        field: "durable",
      });
    }
    const record = await durability.checkpoints.record(target);
    if (record === undefined)
      throw refusal(target, "resume", "it has no durable record in this store", "not_found");
    if (record.state !== "paused" || record.checkpoint === undefined) {
      throw refusal(target, "resume", `it is no longer paused: its record reads "${record.state}"`);
    }
    return this.run(record.checkpoint, options);
  }

  /** The per-run overrides front-door options carry (model, response format). */
  private overridesOf(o: ReturnType<typeof resolveRunOptions<State, Ctx>>): RunOverrides<State> {
    const overrides: RunOverrides<State> = {};
    if (o.model !== undefined) Object.assign(overrides, runModel(this.models, o.model));
    if (o.responseFormat !== undefined)
      overrides.structured = structuredSpec(
        o.responseFormat as JsonObject,
        o.responseFormatOptions,
      ) as StructuredSpec<unknown>;
    return overrides;
  }

  /** Turn front-door options into what the loop needs (and link `onEvent` for the run). */
  private begin(
    input: AgentInput | PausedRun,
    options: RunOptions<State, Ctx> | undefined,
  ): Begun<State, Ctx> {
    const o = resolveRunOptions<State, Ctx>(options);
    this.requireMemoryForThread(options);
    const resumed = isPausedRun(input) ? validatePausedRun(input) : undefined;
    const messages = resumed === undefined ? normalizeInput(input as AgentInput) : [];
    const overrides = this.overridesOf(o);
    const data = (o.hasData ? o.data : this.defaultData()) as Ctx;
    // Resuming keeps the paused run's config (id, thread, caps); the options' config applies on top.
    const config =
      resumed === undefined ? o.config : { ...resumed.config, ...o.config, runId: resumed.runId };
    const { ctx } = createRunContext(this.contextDefaults(), config, data, o.context);
    const unsubscribe = o.onEvent === undefined ? noop : ctx.events.subscribe(o.onEvent);
    return { state: o.state, ctx, messages, resumed, overrides, release: unsubscribe };
  }

  /**
   * A `threadId` means "continue this conversation": without memory the thread would silently
   * have no history, so the front door refuses it and says how to add memory. An engine-hosted run
   * (`durable`, e.g. DBOS) is exempt: there the thread id also orders the thread's runs.
   */
  private requireMemoryForThread(options: RunOptions<State, Ctx> | undefined): void {
    const threadId = options?.threadId;
    if (threadId === undefined || this.memory !== undefined || options?.durable !== undefined) return;
    throw validationError(
      `run option threadId "${threadId}" needs memory, and this agent has none: the thread would have no ` +
        "history. Add memory to the agent: createAgent({ ..., memory: { history: new InMemoryChatHistory(), " +
        "maxMessages: 100 } }) keeps threads in this process; a SQLite or Postgres store's history keeps them " +
        "across restarts (see docs/agent-loop.md#threads-and-memory). Or drop threadId (use tags to group runs).",
      { field: "threadId" },
    );
  }

  /**
   * This agent as a tool another agent can call, in one call: the parent model calls it with
   * `{ input }` (or your `parameters`), the child runs inside the live parent run — its events on
   * the parent's stream, cancelled with it, its usage and cost rolled into the parent's totals and
   * listed in `children` — and the tool returns its final text (or its structured answer). A
   * child that hits a limit or pauses returns an error result saying its work is incomplete.
   */
  asTool<ParentCtx = Ctx>(options: AsToolOptions<State, ParentCtx, Ctx>): Tool<State, ParentCtx, JsonObject> {
    return agentAsTool<State, Ctx, ParentCtx>(this, options);
  }
}
