import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  type ChatModel,
  type Clock,
  type JsonObject,
  type JsonValue,
  type ModelRequest,
  type ModelResponse,
  type ResponseFormat,
  systemClock,
  TinyAgentsError,
  validateModelRequest,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { HarnessParts } from "../agent-loop/loop-session.js";
import { executeRun, type RunOutcome } from "../agent-loop/run-loop.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { ResponseCacheBinding, type ResponseCacheOptions } from "../cache/response-cache-binding.js";
import { noop } from "../context/abort-hub.js";
import type { RunConfig } from "../context/run-config.js";
import type { RunContext } from "../context/run-context.js";
import type { ModelPricing } from "../cost/cost.js";
import { createRandomIds, type IdGenerator } from "../ids/id-generator.js";
import type { ShortTermMemory } from "../memory/short-term-memory.js";
import type { Middleware } from "../middleware/middleware.js";
import { MiddlewareStack } from "../middleware/middleware-stack.js";
import { ModelRegistry } from "../model-registry/model-registry.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { type PausedRun, restoreSession, validatePausedRun } from "../steering/paused-run.js";
import type { StoreRegistry } from "../store/store-registry.js";
import { nameCollision } from "../structured/prepared-structured.js";
import {
  type StructuredOutputOptions,
  type StructuredSpec,
  structuredSpec,
} from "../structured/structured-spec.js";
import { ToolTimeoutSettings } from "../tool/timeout-settings.js";
import type { AnyTool } from "../tool/tool.js";
import { ToolRegistry } from "../tool/tool-registry.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { callModelOnce } from "./call-model.js";
import { type ContextOptions, createRunContext } from "./create-context.js";
import { isPausedRun, type ResponseFormatInput, type RunOptions, resolveRunOptions } from "./run-options.js";
import { defaultRunPolicy, mergeRunPolicy, type RunPolicy, type RunPolicyInput } from "./run-policy.js";
import { type RunResult, settleOutcome } from "./run-result.js";
import { openSession, type RunOverrides, runModel, runParts } from "./run-session.js";
import { AgentStream } from "./run-stream.js";
import { type AgentStreamItem, streamItems } from "./stream-items.js";

export type { AgentStreamItem } from "./stream-items.js";

/** Construction options of an AgentHarness. */
export interface AgentHarnessOptions<Ctx, State = unknown> {
  /** System prompt sent first on every model call (the stable, cacheable prefix). */
  instructions?: string;
  policy?: RunPolicyInput;
  memory?: ShortTermMemory;
  clock?: Clock;
  ids?: IdGenerator;
  stores?: StoreRegistry;
  toolTimeouts?: ToolTimeoutSettings;
  /** Context data for runs given none (`agent.run` without `context`, `invokeDefault`, `callModel`). */
  defaultContext?: () => Ctx;
  /**
   * Per-call context (current time, retrieved documents, per-run facts) sent in the VOLATILE TAIL
   * of every model request — after the transcript, never stored in it — so the cacheable prompt
   * prefix stays byte-stable across turns. Return `undefined` or `""` for none.
   */
  volatileContext?(state: State, run: RunContext<Ctx>): string | undefined;
  /** Ask every run for structured output (see `withResponseFormat`; `createAgent` types it). */
  responseFormat?: ResponseFormatInput;
  responseFormatOptions?: StructuredOutputOptions;
}

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

/** A run's result with its final status record. */
export interface RunWithStatus {
  run: AgentRun;
  status: HarnessRunStatus;
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
export class AgentHarness<State = unknown, Ctx = undefined, Out = unknown> {
  readonly models = new ModelRegistry<State>();
  readonly tools = new ToolRegistry<State, Ctx>();
  private readonly middlewareList: Middleware<State, Ctx>[] = [];
  private stack: MiddlewareStack<State, Ctx> = new MiddlewareStack([]);
  private policyValue: RunPolicy;
  private toolTimeoutSettings: ToolTimeoutSettings;
  private memory: ShortTermMemory | undefined;
  private instructions: string | undefined;
  private agentDefaultModel: string | undefined;
  private readonly clock: Clock;
  private readonly ids: IdGenerator;
  private readonly stores: StoreRegistry | undefined;
  private readonly defaultContext: (() => Ctx) | undefined;
  /** Volatile context and response cache, handed to each run's parts (method syntax keeps State covariant). */
  private readonly context: Pick<HarnessParts<State, Ctx>, "volatileContext" | "responseCache"> = {};
  /** The agent's response format (options, or set on the view `withResponseFormat` returns). */
  private structuredSpec: StructuredSpec<unknown> | undefined;

  constructor(options: AgentHarnessOptions<Ctx, State> = {}) {
    this.policyValue = mergeRunPolicy(
      defaultRunPolicy(),
      options.policy ?? {},
      "AgentHarness options.policy",
    );
    this.toolTimeoutSettings = options.toolTimeouts ?? new ToolTimeoutSettings();
    this.memory = options.memory;
    this.instructions = options.instructions;
    this.clock = options.clock ?? systemClock;
    this.ids = options.ids ?? createRandomIds();
    this.stores = options.stores;
    this.defaultContext = options.defaultContext;
    if (options.volatileContext !== undefined)
      this.context.volatileContext = options.volatileContext.bind(options);
    if (options.responseFormat !== undefined)
      this.structuredSpec = structuredSpec(
        options.responseFormat as JsonObject,
        options.responseFormatOptions,
      ) as StructuredSpec<unknown>;
  }

  // ---- registration -------------------------------------------------------------------

  /** Register a model under `name`; the first registered becomes the default. */
  registerModel(name: string, model: ChatModel<State>, options: { pricing?: ModelPricing } = {}): this {
    this.models.register(name, model, options);
    return this;
  }

  /** Make a registered model the agent's default. */
  setDefaultModel(name: string): this {
    this.models.require(name);
    this.agentDefaultModel = name;
    return this;
  }

  /** Throws `validation` when the name is taken by another tool or by the response format. */
  registerTool(tool: AnyTool<State, Ctx>): this {
    if (this.structuredSpec?.name === tool?.name) throw nameCollision(tool.name);
    this.tools.register(tool);
    return this;
  }

  /**
   * Add middleware. Order matters: `before*` run in this order, `after*` in reverse, wraps
   * outermost-first. Throws `validation` for a missing name, or a name already used by another
   * middleware when both keep resumable state (`saveState` / `restoreState`).
   */
  use(middleware: Middleware<State, Ctx>): this {
    if (typeof middleware?.name !== "string" || middleware.name === "") {
      throw new TinyAgentsError(
        "validation",
        "middleware needs a non-empty `name` (it appears in events and errors)",
        { details: { field: "name" } },
      );
    }
    // Built before the push: a stack that refuses `middleware` (a duplicate name) leaves no trace.
    this.stack = new MiddlewareStack([...this.middlewareList, middleware]);
    this.middlewareList.push(middleware);
    return this;
  }

  /** Merge a partial policy over the current one. */
  withPolicy(policy: RunPolicyInput): this {
    this.policyValue = mergeRunPolicy(this.policyValue, policy, "withPolicy");
    return this;
  }

  withToolTimeoutSettings(settings: ToolTimeoutSettings): this {
    this.toolTimeoutSettings = settings;
    return this;
  }

  withMemory(memory: ShortTermMemory): this {
    this.memory = memory;
    return this;
  }

  withInstructions(instructions: string): this {
    this.instructions = instructions;
    return this;
  }

  /**
   * Per-call context for the volatile tail of every request (see
   * `AgentHarnessOptions.volatileContext`); `undefined` removes it.
   */
  withVolatileContext(fn: ((state: State, run: RunContext<Ctx>) => string | undefined) | undefined): this {
    if (fn !== undefined && typeof fn !== "function") {
      throw new TinyAgentsError(
        "validation",
        "withVolatileContext: pass a function (state, run) => string | undefined",
        { details: { field: "volatileContext" } },
      );
    }
    if (fn === undefined) delete this.context.volatileContext;
    else this.context.volatileContext = fn;
    return this;
  }

  /**
   * Serve model calls through a local response cache (`InMemoryResponseCache`, `SqliteResponseCache`,
   * any `ResponseCache`): each provider call is looked up first by `cacheKey(request, model identity)`
   * scoped by streaming mode and `options.namespace`; hits (`cache.hit`) are marked
   * `servedFromCache` and not billed, misses (`cache.miss`) are stored, concurrent identical misses
   * make one call. `undefined` detaches the cache. Throws `validation` for a cache without get/put.
   */
  withResponseCache(cache: ResponseCache | undefined, options: ResponseCacheOptions = {}): this {
    if (cache === undefined) delete this.context.responseCache;
    else this.context.responseCache = new ResponseCacheBinding(cache, options);
    return this;
  }

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

  get policy(): RunPolicy {
    return this.policyValue;
  }

  /** The id generator runs of this harness draw from (sub-agents name child runs with it). */
  get idGenerator(): IdGenerator {
    return this.ids;
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

  /** Turn front-door options into what the loop needs (and link `onEvent` for the run). */
  private begin(
    input: AgentInput | PausedRun,
    options: RunOptions<State, Ctx> | undefined,
  ): Begun<State, Ctx> {
    const o = resolveRunOptions<State, Ctx>(options);
    const resumed = isPausedRun(input) ? validatePausedRun(input) : undefined;
    const messages = resumed === undefined ? normalizeInput(input as AgentInput) : [];
    const overrides: RunOverrides<State> = {};
    if (o.model !== undefined) Object.assign(overrides, runModel(this.models, o.model));
    if (o.responseFormat !== undefined)
      overrides.structured = structuredSpec(
        o.responseFormat as JsonObject,
        o.responseFormatOptions,
      ) as StructuredSpec<unknown>;
    const data = (o.hasData ? o.data : this.defaultData()) as Ctx;
    // Resuming keeps the paused run's config (id, thread, caps); the options' config applies on top.
    const config =
      resumed === undefined ? o.config : { ...resumed.config, ...o.config, runId: resumed.runId };
    const { ctx } = createRunContext(this.contextDefaults(), config, data, o.context);
    const unsubscribe = o.onEvent === undefined ? noop : ctx.events.subscribe(o.onEvent);
    return { state: o.state, ctx, messages, resumed, overrides, release: unsubscribe };
  }

  // ---- contexts -------------------------------------------------------------------------

  /** Build a RunContext for the `...InContext` entry points (or a sub-agent). */
  createContext(config: Partial<RunConfig>, data: Ctx, options: ContextOptions = {}): RunContext<Ctx> {
    return createRunContext(this.contextDefaults(), config, data, options).ctx;
  }

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

  // ---- internals ----------------------------------------------------------------------------

  /** `release` (unlinking the caller's abort signal) runs when the run ends, whatever happens. */
  private runInContext(
    state: State,
    ctx: RunContext<Ctx>,
    input: ReturnType<typeof normalizeInput>,
    streaming: boolean,
    resumed?: PausedRun,
    release: () => void = noop,
    overrides?: RunOverrides<State>,
  ): Promise<RunOutcome> {
    let outcome: Promise<RunOutcome>;
    try {
      outcome = this.startRun(state, ctx, input, streaming, resumed, overrides);
    } catch (error) {
      release();
      return Promise.reject(error);
    }
    // No extra promise when there is nothing to release (no caller signal): the common case.
    return release === noop ? outcome : outcome.finally(release);
  }

  private startRun(
    state: State,
    ctx: RunContext<Ctx>,
    input: ReturnType<typeof normalizeInput>,
    streaming: boolean,
    resumed: PausedRun | undefined,
    overrides: RunOverrides<State> | undefined,
  ): Promise<RunOutcome> {
    if (ctx.depth > ctx.config.maxDepth) {
      throw new TinyAgentsError(
        "sub_agent_depth",
        `run depth ${ctx.depth} exceeds the maximum depth ${ctx.config.maxDepth} (RunConfig.maxDepth); ` +
          "raise maxDepth or flatten the agent tree",
        { details: { depth: ctx.depth, maxDepth: ctx.config.maxDepth } },
      );
    }
    const parts = runParts(this.parts(), this.structuredSpec, overrides);
    const s = openSession(parts, this.tools, state, ctx, streaming, "agent");
    if (resumed !== undefined) restoreSession(s, resumed);
    return executeRun(s, input, resumed);
  }

  private streamRun(
    state: State,
    ctx: RunContext<Ctx>,
    input: ReturnType<typeof normalizeInput>,
    release: () => void,
    resumed?: PausedRun,
  ): AsyncIterator<AgentStreamItem> {
    return streamItems(
      ctx,
      () => this.runInContext(state, ctx, input, true, resumed),
      (error) => this.notStarted(state, ctx, error),
      release,
    );
  }

  /** The run and failed status of a run that could not start (for a stream's `failed` item). */
  private notStarted(state: State, ctx: RunContext<Ctx>, error: TinyAgentsError): RunWithStatus {
    const s = openSession(this.parts(), this.tools, state, ctx, true, "agent");
    s.status.finish("failed", error.toJSON());
    return { run: s.run, status: s.status.snapshot() };
  }

  private parts(): HarnessParts<State, Ctx> {
    const parts: HarnessParts<State, Ctx> = {
      models: this.models,
      tools: this.tools,
      middleware: this.stack,
      policy: this.policyValue,
      toolTimeouts: this.toolTimeoutSettings,
    };
    if (this.memory !== undefined) parts.memory = this.memory;
    if (this.instructions !== undefined) parts.instructions = this.instructions;
    if (this.agentDefaultModel !== undefined) parts.agentDefaultModel = this.agentDefaultModel;
    if (this.context.volatileContext !== undefined) parts.volatileContext = this.context.volatileContext;
    if (this.context.responseCache !== undefined) parts.responseCache = this.context.responseCache;
    return parts;
  }

  private contextDefaults() {
    return {
      clock: this.clock,
      ids: this.ids,
      limits: this.policyValue.limits,
      ...(this.stores === undefined ? {} : { stores: this.stores }),
    };
  }

  private defaultData(): Ctx {
    return (this.defaultContext ? this.defaultContext() : undefined) as Ctx;
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
