import { type JsonObject, type Message, validationError } from "@tinyagents/inference";
import type { RunConfig } from "../config/run-config.js";
import { noop } from "../context/abort-hub.js";
import type { LiveRunContext } from "../context/run-context.js";
import { type PausedRun, validatePausedRun } from "../durability/paused-run.js";
import { type StructuredSpec, structuredSpec } from "../structured/structured-spec.js";
import { type AgentInput, normalizeInput } from "./agent-input.js";
import type { AgentSnapshot } from "./agent-snapshot.js";
import { createRunContext } from "./create-context.js";
import { isPausedRun, type ResolvedRunOptions, type RunOptions, resolveRunOptions } from "./run-options.js";
import { type RunOverrides, runModel } from "./run-session.js";

/** One front-door run, ready for the loop: its state, context, input and overrides. */
export interface PreparedRun<State, Ctx> {
  state: State;
  ctx: LiveRunContext<Ctx>;
  messages: Message[];
  resumed: PausedRun | undefined;
  overrides: RunOverrides<State> | undefined;
  /** Detaches `onEvent` when the run ends. */
  release: () => void;
}

/**
 * The one place `RunOptions` become a run: options checked, split, and turned into the run's
 * RunContext over the agent's snapshot (its clock, ids, limits, stores, default context data).
 * `run`, `stream` and `resume` start here, `callModel` at {@link contextOf}; `recover` checks its
 * options with {@link prepareOptions} and builds its context from the run's durable record
 * (`run-engine.ts` `takeForRecover`).
 */
export function prepareRun<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  input: AgentInput | PausedRun,
  options: RunOptions<State, Ctx> | undefined,
): PreparedRun<State, Ctx> {
  const o = prepareOptions(agent, options);
  const resumed = isPausedRun(input) ? validatePausedRun(input) : undefined;
  const messages = resumed === undefined ? normalizeInput(input as AgentInput) : [];
  // Resuming keeps the paused run's config (id, thread, caps); the options' config applies on top.
  const config = resumed === undefined ? o.config : { ...resumed.config, ...o.config, runId: resumed.runId };
  const { ctx, release } = contextOf(agent, o, config);
  return { state: o.state, ctx, messages, resumed, overrides: overridesOf(agent, o), release };
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
): { ctx: LiveRunContext<Ctx>; release: () => void } {
  const ctx = createRunContext(agent.defaults, config, dataOf(agent, o), o.context);
  return { ctx, release: subscribe(ctx, o) };
}

/** Check and split `options` (see `resolveRunOptions`), refusing a thread without memory. */
export function prepareOptions<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  options: RunOptions<State, Ctx> | undefined,
): ResolvedRunOptions<State, Ctx> {
  const o = resolveRunOptions<State, Ctx>(options);
  requireMemoryForThread(agent, options);
  return o;
}

/** The run's context data: the options', else the agent's `defaultContext()`. */
export function dataOf<State, Ctx>(agent: AgentSnapshot<State, Ctx>, o: ResolvedRunOptions<State, Ctx>): Ctx {
  return (o.hasData ? o.data : agent.defaultData()) as Ctx;
}

/** Link `onEvent` to the run's events; returns what detaches it. */
export function subscribe<State, Ctx>(
  ctx: LiveRunContext<Ctx>,
  o: ResolvedRunOptions<State, Ctx>,
): () => void {
  return o.onEvent === undefined ? noop : ctx.events.subscribe(o.onEvent);
}

/** The per-run overrides the options carry (model, response format); none in the common case. */
export function overridesOf<State, Ctx>(
  agent: AgentSnapshot<State, Ctx>,
  o: ResolvedRunOptions<State, Ctx>,
): RunOverrides<State> | undefined {
  if (o.model === undefined && o.responseFormat === undefined) return undefined;
  const overrides: RunOverrides<State> = {};
  if (o.model !== undefined) Object.assign(overrides, runModel(agent.parts.models, o.model));
  if (o.responseFormat !== undefined)
    overrides.structured = structuredSpec(
      o.responseFormat as JsonObject,
      o.responseFormatOptions,
    ) as StructuredSpec<unknown>;
  return overrides;
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
