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
  toTinyAgentsError,
  validateModelRequest,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import { AsyncQueue } from "../agent-loop/async-queue.js";
import { checkDeadline } from "../agent-loop/checkpoint.js";
import { holdRun } from "../agent-loop/deadline.js";
import { emptyRun, type HarnessParts, type LoopSession } from "../agent-loop/loop-session.js";
import { runModelPhase } from "../agent-loop/model-phase.js";
import { controlledResponse } from "../agent-loop/model-turn-control.js";
import { OpenCalls } from "../agent-loop/open-calls.js";
import { executeRun, failRun, type RunOutcome } from "../agent-loop/run-loop.js";
import type { ResponseCache } from "../cache/response-cache.js";
import { ResponseCacheBinding, type ResponseCacheOptions } from "../cache/response-cache-binding.js";
import { noop } from "../context/abort-hub.js";
import type { GraphNodeCall, GraphNodeRef } from "../context/graph-node.js";
import type { RunConfig } from "../context/run-config.js";
import type { RunContext } from "../context/run-context.js";
import type { ModelPricing } from "../cost/cost.js";
import type { EventRecord } from "../events/agent-event.js";
import { createRandomIds, type IdGenerator } from "../ids/id-generator.js";
import type { ShortTermMemory } from "../memory/short-term-memory.js";
import type { Middleware } from "../middleware/middleware.js";
import { MiddlewareStack } from "../middleware/middleware-stack.js";
import { ModelRegistry } from "../model-registry/model-registry.js";
import { type HarnessComponent, type HarnessRunStatus, RunStatusTracker } from "../status/run-status.js";
import { type PausedRun, restoreSession, validatePausedRun } from "../steering/paused-run.js";
import type { StoreRegistry } from "../store/store-registry.js";
import {
  nameCollision,
  type PreparedStructured,
  prepareStructured,
} from "../structured/prepared-structured.js";
import { StructuredAgent } from "../structured/structured-agent.js";
import {
  type StructuredOutputOptions,
  type StructuredSpec,
  structuredSpec,
} from "../structured/structured-spec.js";
import { foldChildRun } from "../subagent/child-run.js";
import { ToolTimeoutSettings } from "../tool/timeout-settings.js";
import type { AnyTool } from "../tool/tool.js";
import { ToolRegistry } from "../tool/tool-registry.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import { type ContextOptions, createRunContext } from "./create-context.js";
import { defaultRunPolicy, mergeRunPolicy, type RunPolicy, type RunPolicyInput } from "./run-policy.js";

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
  /** Context data for entry points that take none (`invokeDefault`, `callModel`). */
  defaultContext?: () => Ctx;
  /**
   * Per-call context (current time, retrieved documents, per-run facts) sent in the VOLATILE TAIL
   * of every model request — after the transcript, never stored in it — so the cacheable prompt
   * prefix stays byte-stable across turns. Return `undefined` or `""` for none.
   */
  volatileContext?(state: State, run: RunContext<Ctx>): string | undefined;
}

/** One item of a streaming run: every event as it happens, then exactly one terminal item. */
export type AgentStreamItem =
  | { type: "event"; record: EventRecord }
  | { type: "completed"; run: AgentRun; status: HarnessRunStatus }
  | { type: "failed"; error: TinyAgentsError; run: AgentRun; status: HarnessRunStatus };

/** A run's result with its final status record. */
export interface RunWithStatus {
  run: AgentRun;
  status: HarnessRunStatus;
}

/**
 * The agent harness: models, tools, middleware and policy, and the entry points that run the
 * model -> tool -> model loop. Every entry point runs the same loop (`executeRun`).
 *
 * `State` is the caller's application state handed to models, tools and middleware;
 * `Ctx` is the per-run context data carried on the RunContext.
 */
export class AgentHarness<State = unknown, Ctx = undefined> {
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
  /** Set on the views `withResponseFormat` returns (see there). */
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

  registerTool(tool: AnyTool<State, Ctx>): this {
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
        {
          details: { field: "name" },
        },
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
        {
          details: { field: "volatileContext" },
        },
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
   * A typed view of this agent that asks for structured output matching `schema` (a Standard
   * Schema such as zod 4, a raw JSON Schema, or a `ResponseFormat`) and returns runs whose
   * `structured` is the validated, typed value:
   *
   * ```ts
   * const run = await harness.withResponseFormat(z.object({ city: z.string() })).invokeDefault(state, "...");
   * run.structured.city; // string
   * ```
   *
   * The view is live: models, tools, middleware and policy changes on this harness apply to it.
   * Throws `validation` for an unusable schema or a name that collides with a registered tool.
   */
  withResponseFormat<S extends StandardSchemaV1>(
    schema: S,
    options?: StructuredOutputOptions,
  ): StructuredAgent<State, Ctx, StandardSchemaV1.InferOutput<S>>;
  withResponseFormat(
    schema: JsonObject | ResponseFormat,
    options?: StructuredOutputOptions,
  ): StructuredAgent<State, Ctx, JsonValue>;
  withResponseFormat(
    schema: StandardSchemaV1 | JsonObject | ResponseFormat,
    options: StructuredOutputOptions = {},
  ): StructuredAgent<State, Ctx, unknown> {
    const spec = structuredSpec(schema as JsonObject, options) as StructuredSpec<unknown>;
    if (this.tools.has(spec.name)) throw nameCollision(spec.name);
    const view = Object.create(this) as AgentHarness<State, Ctx>;
    view.structuredSpec = spec;
    return new StructuredAgent<State, Ctx, unknown>(view, spec);
  }

  get policy(): RunPolicy {
    return this.policyValue;
  }

  /** The id generator runs of this harness draw from (sub-agents name child runs with it). */
  get idGenerator(): IdGenerator {
    return this.ids;
  }

  // ---- contexts -------------------------------------------------------------------------

  /** Build a RunContext for the `...InContext` entry points (or a sub-agent). */
  createContext(config: Partial<RunConfig>, data: Ctx, options: ContextOptions = {}): RunContext<Ctx> {
    return createRunContext(this.contextDefaults(), config, data, options).ctx;
  }

  // ---- unary entry points -----------------------------------------------------------------

  /** Run the agent and return the finished run; throws the run's error (see `invokeCollectingPartial`). */
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

  // ---- resuming a paused run ------------------------------------------------------------------

  /**
   * Continue an interrupted run from its `PausedRun` (`run.paused`, possibly loaded from a
   * store by another process and another harness instance with the same models and tools).
   * The run keeps its run id, config, transcript and counters: pending tool calls run first,
   * then the loop goes on as if it had never stopped. Throws the run's error like `invoke`;
   * a run paused again returns with `stopReason: "interrupted"` and a new `paused`.
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

  // ---- streaming entry points ---------------------------------------------------------------

  /**
   * Run the agent, yielding every event as it happens (model deltas included), then one
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
    return { [Symbol.asyncIterator]: () => this.streamRun(state, ctx, messages, () => {}) };
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
    const s = this.session(state, ctx, false, "model_call");
    const letGo = holdRun(ctx);
    try {
      s.status.start();
      ctx.emit({
        type: "run.started",
        input: request.messages.length,
        ...(ctx.threadId ? { threadId: ctx.threadId } : {}),
      });
      const hit = ctx.limits.admitModelCall();
      if (hit !== undefined) {
        ctx.emit({ type: "limit.reached", limit: hit.limit, value: hit.value, count: hit.count });
        throw hit.error;
      }
      const answered = await runModelPhase(s, `${ctx.runId}-model-1`, request);
      // A middleware's control request (beforeModel or afterModel) decides the answer.
      const response = controlledResponse(s, answered);
      checkDeadline(s);
      ctx.emit({ type: "run.completed", modelCalls: 1, toolCalls: 0, usage: s.run.usage, cost: s.run.cost });
      s.status.finish("completed");
      return { response, status: s.status.snapshot() };
    } catch (thrown) {
      const error = TinyAgentsError.isInstance(thrown)
        ? thrown
        : new TinyAgentsError("internal", String(thrown), { cause: thrown });
      await failRun(s, error);
      throw error;
    } finally {
      letGo();
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
  ): Promise<RunOutcome> {
    let outcome: Promise<RunOutcome>;
    try {
      outcome = this.startRun(state, ctx, input, streaming, resumed);
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
  ): Promise<RunOutcome> {
    if (ctx.depth > ctx.config.maxDepth) {
      throw new TinyAgentsError(
        "sub_agent_depth",
        `run depth ${ctx.depth} exceeds the maximum depth ${ctx.config.maxDepth} (RunConfig.maxDepth); ` +
          "raise maxDepth or flatten the agent tree",
        {
          details: { depth: ctx.depth, maxDepth: ctx.config.maxDepth },
        },
      );
    }
    const structured = this.prepareStructuredOutput();
    const s = this.session(state, ctx, streaming, "agent");
    if (structured !== undefined) {
      s.parts.structured = structured;
      // Tool strategy: the run's tools include the synthetic final-answer tool.
      if (structured.tools !== undefined) s.parts.tools = structured.tools;
    }
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
    const queue = new AsyncQueue<AgentStreamItem>();
    const unsubscribe = ctx.events.subscribe((record) => queue.push({ type: "event", record }));
    const finished = this.runInContext(state, ctx, input, true, resumed)
      .then(
        (outcome): AgentStreamItem =>
          outcome.error === undefined
            ? { type: "completed", run: outcome.run, status: outcome.status }
            : { type: "failed", error: outcome.error, run: outcome.run, status: outcome.status },
        (thrown: unknown): AgentStreamItem => {
          // The run could not start (e.g. depth over maxDepth): still end the stream with a failed item.
          const error = toTinyAgentsError(thrown);
          const s = this.session(state, ctx, true, "agent");
          s.status.finish("failed", error.toJSON());
          return { type: "failed", error, run: s.run, status: s.status.snapshot() };
        },
      )
      .then((last) => {
        unsubscribe();
        queue.push(last);
        queue.close();
        release();
      });
    const iterator = queue[Symbol.asyncIterator]();
    return {
      next: () => iterator.next(),
      return: async () => {
        ctx.cancel(
          new TinyAgentsError("cancelled", "the stream consumer stopped reading", {
            details: { where: "stream" },
          }),
        );
        unsubscribe();
        await finished;
        queue.close();
        return { done: true, value: undefined };
      },
    };
  }

  private session(
    state: State,
    ctx: RunContext<Ctx>,
    streaming: boolean,
    call: GraphNodeCall,
  ): LoopSession<State, Ctx> {
    const graph = ctx.config.graphNode;
    const component: HarnessComponent = graph === undefined ? call : "graph_node";
    const identity: ConstructorParameters<typeof RunStatusTracker>[0] = {
      runId: ctx.runId,
      rootRunId: ctx.scope.rootRunId,
      component,
    };
    if (ctx.scope.parentRunId !== undefined) identity.parentRunId = ctx.scope.parentRunId;
    if (ctx.threadId !== undefined) identity.threadId = ctx.threadId;
    let graphNode: GraphNodeRef | undefined;
    if (graph !== undefined) {
      // One frozen object for the status record and every event record of the node's call.
      graphNode = Object.freeze({ graphId: graph.graphId, node: graph.node, call });
      ctx.scope.graphNode = graphNode;
    }
    const transcript: AgentRun["messages"] = [];
    const run = emptyRun(ctx.runId, ctx.threadId, transcript);
    // The status record reads counts, usage and cost from the run itself.
    const status = new RunStatusTracker(
      identity,
      () => ctx.clock.now(),
      () => ctx.events.lastEventId,
      run,
      graphNode,
    );
    ctx.attachStatus(status);
    // A sub-agent run in this context inherits it: a streaming parent streams its children too.
    if (streaming) ctx.streamsDeltas = true;
    const session: LoopSession<State, Ctx> = {
      parts: this.parts(),
      ctx,
      hook: { state, run: ctx, tools: this.tools },
      state,
      streaming,
      transcript,
      run,
      status,
      usedToolCallIds: new Set(),
      open: new OpenCalls(),
    };
    if (ctx.previousModel !== undefined) session.previousModel = ctx.previousModel;
    ctx.attachChildFold((child) => foldChildRun(session, child));
    return session;
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

  /** The run's structured output (view's schema, else `policy.responseFormat`), or undefined. */
  private prepareStructuredOutput(): PreparedStructured<State, Ctx> | undefined {
    const format = this.policyValue.responseFormat;
    const spec =
      this.structuredSpec ??
      (format === undefined || format.type === "text"
        ? undefined
        : structuredSpec(format, { strategy: "native" }));
    if (spec === undefined) return undefined;
    return prepareStructured(spec, this.models, this.tools, this.agentDefaultModel);
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
