import type { Clock } from "@tinyagents/inference";
import { type RunConfig, runConfig } from "../config/run-config.js";
import { AbortHub } from "../context/abort-hub.js";
import { LiveRunContext } from "../context/run-context.js";
import type { DurableContext } from "../contracts/durable-context.js";
import { type RunDurability, resolveDurability } from "../durability/run-durability.js";
import { EventSink } from "../events/event-sink.js";
import type { IdGenerator } from "../ids/id-generator.js";
import { type EffectiveLimits, LimitTracker } from "../limits/limit-tracker.js";
import type { RunLimits } from "../limits/run-limits.js";
import { StoreRegistry } from "../store/store-registry.js";
import type { RunOptions } from "./run-options.js";

/**
 * The run options a RunContext is built from, as `RunOptions` names and documents them (the one
 * place): the front door passes its caller's options object itself, no copy.
 */
export type ContextSources = Pick<
  RunOptions<unknown, unknown>,
  "signal" | "clock" | "ids" | "events" | "stores" | "steering" | "workspace" | "previousModel"
>;

/**
 * `ContextSources` with `durable` already split (see `ResolvedRunOptions`): the shape of the
 * internal lower layer and graph nodes, which build contexts from parts they hold, not from
 * `RunOptions`.
 */
export interface ContextOptions extends ContextSources {
  /**
   * Liveness: the run's status record carries `ownerId`, `heartbeatAt` and `leaseUntil`, renewed
   * by every event and by one shared heartbeat timer, so `statusStore.reapStale` can find it if
   * its process dies (see docs/durability.md).
   */
  durability?: RunDurability;
  /**
   * The execution engine this run executes in (`@tinyagents/restate`, `@tinyagents/dbos`, the
   * testkit's `ReplayDurableContext`): model calls, tool calls, child runs, the run's start time and
   * generated run id, and approval waits go through it, journaled (see `DurableContext`). Default:
   * in process (`InProcessDurableContext`, `ctx.durable`), which calls straight through.
   */
  durable?: DurableContext;
}

/** `createRunContext` from a {@link ContextOptions} (the lower layer's and graph nodes' shape). */
export function contextFromOptions<Ctx>(
  defaults: ContextDefaults,
  config: Partial<RunConfig>,
  data: Ctx,
  options: ContextOptions = {},
): LiveRunContext<Ctx> {
  return createRunContext(defaults, config, data, options, options.durability, options.durable);
}

/** Harness-level defaults a context is built from. */
export interface ContextDefaults {
  clock: Clock;
  ids: IdGenerator;
  limits: RunLimits;
  stores?: StoreRegistry;
}

/**
 * Build the RunContext of one run: merge the config over defaults (clock and ids from `options`
 * first), compute effective caps and the deadline. The caller's abort signal is linked by the
 * loop only while a run executes in the context (see `LiveRunContext.linkCaller`): nothing to undo.
 * `durability` and `engine` are the run's `durable` option, split (`ResolvedRunOptions`).
 */
export function createRunContext<Ctx>(
  defaults: ContextDefaults,
  config: Partial<RunConfig>,
  data: Ctx,
  options: ContextSources,
  durability: RunDurability | undefined,
  engine: DurableContext | undefined,
): LiveRunContext<Ctx> {
  const clock = options.clock ?? defaults.clock;
  const ids = options.ids ?? defaults.ids;
  // Through the engine, so a re-driven run gets the same id and start time (its deadline too).
  // In process these are the very calls `InProcessDurableContext` makes, without building it.
  const runId = config.runId ?? (engine === undefined ? ids.next("run") : engine.randomId("run"));
  const full = runConfig(config, runId, defaults.limits.maxDepth);
  const now = engine === undefined ? clock.now() : engine.now();
  const timeoutMs = earliest(full.timeoutMs, defaults.limits.maxWallClockMs);
  const limits: EffectiveLimits = {
    maxModelCalls: full.maxModelCalls ?? defaults.limits.maxModelCalls,
    maxToolCalls: full.maxToolCalls ?? defaults.limits.maxToolCalls,
    maxRetriesPerCall: defaults.limits.maxRetriesPerCall,
  };
  if (timeoutMs !== undefined) {
    limits.timeoutMs = timeoutMs;
    limits.deadline = now + timeoutMs;
  }
  // A fresh sink starts at offset 0: a graph node's call names it by its own run id, not the
  // graph run's (its root), or two node calls of one graph run would both emit `<graph>-evt-0`...
  const streamId = full.graphNode !== undefined ? full.runId : (full.rootRunId ?? full.runId);
  const events = options.events ?? new EventSink(streamId, { clock });
  return new LiveRunContext<Ctx>({
    config: full,
    data,
    stores: options.stores ?? defaults.stores ?? new StoreRegistry(),
    events,
    clock,
    ids,
    abort: new AbortHub(),
    ...(options.signal === undefined ? {} : { callerSignal: options.signal }),
    limits: new LimitTracker(limits, now),
    ...(options.steering === undefined ? {} : { steering: options.steering }),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    ...(options.previousModel === undefined ? {} : { previousModel: options.previousModel }),
    ...(durability === undefined ? {} : { durability: resolveDurability(durability) }),
    ...(engine === undefined ? {} : { durable: engine }),
  });
}

/** The smaller of two optional timeouts. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
