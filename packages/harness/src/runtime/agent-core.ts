import {
  type ChatModel,
  type Clock,
  type JsonObject,
  systemClock,
  TinyAgentsError,
} from "@tinyagents/inference";
import type { AgentRun } from "../agent-loop/agent-run.js";
import type { HarnessParts } from "../agent-loop/loop-session.js";
import { ResponseCacheBinding, type ResponseCacheOptions } from "../agent-loop/response-cache-binding.js";
import {
  defaultRunPolicy,
  mergeRunPolicy,
  type RunPolicy,
  type RunPolicyInput,
} from "../agent-loop/run-policy.js";
import type { ResponseCache } from "../cache/response-cache.js";
import type { RunContext } from "../contracts/run-context.js";
import type { ModelPricing } from "../cost/cost.js";
import { createRandomIds, type IdGenerator } from "../ids/id-generator.js";
import type { ShortTermMemory } from "../memory/short-term-memory.js";
import type { Middleware } from "../middleware/middleware.js";
import { MiddlewareStack } from "../middleware/middleware-stack.js";
import { ModelRegistry } from "../model-registry/model-registry.js";
import type { HarnessRunStatus } from "../status/run-status.js";
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
import { type AgentSnapshot, agentSnapshot } from "./agent-snapshot.js";
import type { ContextDefaults } from "./create-context.js";
import type { ResponseFormatInput } from "./run-options.js";

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
  /** Context data for runs given none (`agent.run` / `agent.callModel` without `context`). */
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

/** A run's result with its final status record. */
export interface RunWithStatus {
  run: AgentRun;
  status: HarnessRunStatus;
}

/**
 * The agent's registration (models, tools, middleware, policy, memory, instructions, caches).
 * It runs nothing itself: a run reads its snapshot (`[agentSnapshot]()`) and goes through
 * `run-engine.ts`. Users work with `AgentHarness` (the front door), which extends it.
 */
export class AgentCore<State = unknown, Ctx = undefined> {
  readonly models = new ModelRegistry<State>();
  readonly tools = new ToolRegistry<State, Ctx>();
  protected readonly middlewareList: Middleware<State, Ctx>[] = [];
  protected stack: MiddlewareStack<State, Ctx> = new MiddlewareStack([]);
  protected policyValue: RunPolicy;
  protected toolTimeoutSettings: ToolTimeoutSettings;
  protected memory: ShortTermMemory | undefined;
  protected instructions: string | undefined;
  protected agentDefaultModel: string | undefined;
  protected readonly clock: Clock;
  protected readonly ids: IdGenerator;
  protected readonly stores: StoreRegistry | undefined;
  protected readonly defaultContext: (() => Ctx) | undefined;
  /** Volatile context and response cache, handed to each run's parts (method syntax keeps State covariant). */
  protected readonly context: Pick<HarnessParts<State, Ctx>, "volatileContext" | "responseCache"> = {};
  /** The agent's response format (options, or set on the view `withResponseFormat` returns). */
  protected structuredSpec: StructuredSpec<unknown> | undefined;

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

  get policy(): RunPolicy {
    return this.policyValue;
  }

  /** The id generator runs of this harness draw from (sub-agents name child runs with it). */
  get idGenerator(): IdGenerator {
    return this.ids;
  }

  // ---- what a run reads --------------------------------------------------------------------

  /** @internal What one run reads from this agent (see `AgentSnapshot`); internal subpath only. */
  [agentSnapshot](): AgentSnapshot<State, Ctx> {
    return {
      parts: this.parts(),
      structured: this.structuredSpec,
      defaults: this.contextDefaults(),
      defaultData: () => this.defaultData(),
    };
  }

  protected parts(): HarnessParts<State, Ctx> {
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

  protected contextDefaults(): ContextDefaults {
    return {
      clock: this.clock,
      ids: this.ids,
      limits: this.policyValue.limits,
      ...(this.stores === undefined ? {} : { stores: this.stores }),
    };
  }

  protected defaultData(): Ctx {
    return (this.defaultContext ? this.defaultContext() : undefined) as Ctx;
  }
}
