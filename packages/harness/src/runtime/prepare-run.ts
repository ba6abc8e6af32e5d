import { type JsonObject, type Message, validationError } from "@tinyagents/inference";
import type { RunConfig } from "../config/run-config.js";
import { noop } from "../context/abort-hub.js";
import type { LiveRunContext } from "../context/run-context.js";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import { type StructuredSpec, structuredSpec } from "../structured/structured-spec.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import type { AgentSnapshot } from "./agent-snapshot.js";
import { type ContextSources, createRunContext } from "./create-context.js";
import { isPausedRun, type ResolvedRunOptions, type RunOptions, resolveRunOptions } from "./run-options.js";
import {
  type ChildRun,
  type ChildRunExtras,
  childConfig,
  childRunOf,
  inheritedContext,
  lineageListener,
} from "./run-parent.js";
import { type RunOverrides, runModel } from "./run-session.js";

/** One front-door run, ready for the loop: its state, context, input and overrides. */
export interface PreparedRun<State, Ctx> {
  state: State;
  ctx: LiveRunContext<Ctx>;
  messages: Message[];
  resumed: PausedRun | undefined;
  overrides: RunOverrides<State> | undefined;
  /** Set for a child run (the `parent` option, or a `SubAgent`): see `child-run.ts`. */
  child: ChildRun | undefined;
  /** Detaches `onEvent` when the run ends. */
  release: () => void;
}

/**
 * The one place `RunOptions` become a run: options checked and turned into the run's
 * RunContext over the agent's snapshot (its clock, ids, limits, stores, default context data),
 * or over the parent's context for a child run. `run`, `stream` and `resume` start here,
 * `callModel` at {@link contextOf}; `recover` checks its options with {@link prepareOptions}
 * and builds its context from the run's durable record (`run-engine.ts` `takeForRecover`).
 * `extras` is what a `SubAgent` adds (its name, session turn, workspace isolation).
 */
export function prepareRun<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  input: AgentInput | PausedRun,
  options: RunOptions<State, Ctx> | undefined,
  extras?: ChildRunExtras,
): PreparedRun<State, Ctx> {
  const o = prepareOptions(agent, options);
  const resumed = isPausedRun(input) ? validatePausedRun(input) : undefined;
  const messages = resumed === undefined ? normalizeInput(input as AgentInput) : [];
  const child = childRunOf(o.parent, extras);
  if (child !== undefined && resumed !== undefined)
    throw validationError("a child run (option parent) cannot resume a paused run", { field: "parent" });
  // Resuming keeps the paused run's config (id, thread, caps); the options' config applies on top.
  let config = resumed === undefined ? o.config : { ...resumed.config, ...o.config, runId: resumed.runId };
  if (extras?.config !== undefined) config = { ...config, ...extras.config };
  let built: { ctx: LiveRunContext<Ctx>; release: () => void };
  if (child?.parent === undefined) built = contextOf(agent, o, config);
  else {
    // A child: its identity from the parent, its context over the parent's; the options win.
    const inherited = inheritedContext(child.parent);
    config = { ...childConfig({ ...child, parent: child.parent }), ...config };
    const sources: ContextSources = { ...inherited, ...definedSources(o.options) };
    built = contextOf(
      agent,
      o,
      config,
      sources,
      o.durability ?? inherited.durability,
      o.engine ?? inherited.durable,
      true,
    );
  }
  const { ctx, release } = built;
  return {
    state: o.options.state as State,
    ctx,
    messages,
    resumed,
    overrides: overridesOf(agent, o),
    child,
    release,
  };
}

/**
 * The run's context from checked options: `config` (default: the options') over the agent's
 * defaults, the options' or the agent's context data, `onEvent` linked (`release` detaches it).
 * `prepareRun` and `agent.callModel` build their contexts here.
 */
export function contextOf<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  o: ResolvedRunOptions<State, Ctx>,
  config: Partial<RunConfig> = o.config,
  sources: ContextSources = o.options,
  durability = o.durability,
  engine = o.engine,
  ownEventsOnly = false,
): { ctx: LiveRunContext<Ctx>; release: () => void } {
  const ctx = createRunContext(agent.defaults, config, dataOf(agent, o), sources, durability, engine);
  return { ctx, release: subscribe(ctx, o, ownEventsOnly) };
}

/** Check `options` (see `resolveRunOptions`), refusing a thread without memory. */
export function prepareOptions<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  options: RunOptions<State, Ctx> | undefined,
): ResolvedRunOptions<State, Ctx> {
  const o = resolveRunOptions<State, Ctx>(options);
  requireMemoryForThread(agent, options);
  return o;
}

/** `validation` when an entry point other than `run` is given the `parent` option. */
export function refuseParent<State, Ctx>(
  o: ResolvedRunOptions<State, Ctx>,
  entry: string,
  why: string,
): void {
  if (o.parent !== undefined)
    throw validationError(`run option parent is an option of agent.run, not of agent.${entry}: ${why}`, {
      field: "parent",
    });
}

/** The run's context data: the options', else the agent's `defaultContext()`. */
export function dataOf<State, Ctx>(agent: AgentSnapshot<State, Ctx>, o: ResolvedRunOptions<State, Ctx>): Ctx {
  return ("context" in o.options ? o.options.context : agent.defaultData()) as Ctx;
}

/**
 * Link `onEvent` to the run's events; returns what detaches it. `ownEventsOnly` (a child run,
 * which shares its parent's sink): only the run's own events and its descendants' reach it,
 * not the parent's or its siblings'.
 */
export function subscribe<State, Ctx>(
  ctx: LiveRunContext<Ctx>,
  o: ResolvedRunOptions<State, Ctx>,
  ownEventsOnly = false,
): () => void {
  const onEvent = o.options.onEvent;
  if (onEvent === undefined) return noop;
  return ctx.events.subscribe(ownEventsOnly ? lineageListener(ctx.runId, onEvent) : onEvent);
}

/** The per-run overrides the options carry (model, response format); none in the common case. */
export function overridesOf<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  o: ResolvedRunOptions<State, Ctx>,
): RunOverrides<State> | undefined {
  const { model, responseFormat, responseFormatOptions } = o.options;
  if (model === undefined && responseFormat === undefined) return undefined;
  const overrides: RunOverrides<State> = {};
  if (model !== undefined) Object.assign(overrides, runModel(agent.parts.models, model));
  if (responseFormat !== undefined)
    overrides.structured = structuredSpec(
      responseFormat as JsonObject,
      responseFormatOptions,
    ) as StructuredSpec<unknown>;
  return overrides;
}

const SOURCE_KEYS = [
  "signal",
  "clock",
  "ids",
  "events",
  "stores",
  "steering",
  "workspace",
  "previousModel",
] as const satisfies readonly (keyof ContextSources)[];

/** The context sources `options` sets (a child's options override what it inherits, not with `undefined`). */
function definedSources(options: ContextSources): ContextSources {
  const sources: Record<string, unknown> = {};
  for (const key of SOURCE_KEYS) if (options[key] !== undefined) sources[key] = options[key];
  return sources as ContextSources;
}

/**
 * A `threadId` means "continue this conversation": without memory the thread would silently
 * have no history, so the front door refuses it and says how to add memory. An engine-hosted run
 * (`durable`, e.g. DBOS) is exempt: there the thread id also orders the thread's runs.
 */
function requireMemoryForThread<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  options: RunOptions<State, Ctx> | undefined,
): void {
  const threadId = options?.threadId;
  if (threadId === undefined || agent.parts.memory !== undefined || options?.durable !== undefined) return;
  throw validationError(
    `run option threadId "${threadId}" needs memory, and this agent has none: the thread would have no ` +
      "history. Add memory to the agent: createAgent({ ..., memory: { history: new InMemoryChatHistory(), " +
      "maxMessages: 100 } }) keeps threads in this process; a SQLite or Postgres store's history keeps them " +
      "across restarts (see docs/agent-loop.md#threads-and-memory). Or drop threadId (use tags to group runs).",
    { field: "threadId" },
  );
}
