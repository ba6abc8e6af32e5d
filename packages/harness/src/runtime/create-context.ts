import type { Clock } from "@tinyagents/inference";
import { type RunConfig, runConfig } from "../config/run-config.js";
import { AbortHub } from "../context/abort-hub.js";
import { LiveRunContext } from "../context/run-context.js";
import type { DurableContext } from "../contracts/durable-context.js";
import type { RunEventSink } from "../contracts/run-event-sink.js";
import type { RunStores } from "../contracts/run-stores.js";
import type { RunWorkspace } from "../contracts/run-workspace.js";
import { type RunDurability, resolveDurability } from "../durability/run-durability.js";
import { EventSink } from "../events/event-sink.js";
import type { IdGenerator } from "../ids/id-generator.js";
import { type EffectiveLimits, LimitTracker } from "../limits/limit-tracker.js";
import type { RunLimits } from "../limits/run-limits.js";
import type { SteeringHandle } from "../steering/steering-handle.js";
import { StoreRegistry } from "../store/store-registry.js";

/** Optional per-run dependencies; anything omitted is created fresh (or taken from the harness). */
export interface ContextOptions {
  /**
   * Cancels the run when it aborts. The run listens only while it executes: the listener is
   * removed when the run ends, however it ends.
   */
  signal?: AbortSignal;
  /**
   * This run's clock (default: the harness's): timestamps, the deadline, call and tool timeouts,
   * retry waits. Pass a `DeterministicClock` to test one run in virtual time.
   */
  clock?: Clock;
  /** This run's id generator (default: the harness's): the run id when none is given, child run ids. */
  ids?: IdGenerator;
  /** Share an event sink (a sub-agent shares its parent's). */
  events?: RunEventSink;
  stores?: RunStores;
  /** Lets a test, a parent agent, middleware or a queue steer the run (see `SteeringHandle`). */
  steering?: SteeringHandle;
  /** The filesystem sandbox handed to every tool call as `ctx.run.workspace`. */
  workspace?: RunWorkspace;
  /**
   * The registry name of a model resolved earlier (a previous run, a graph's state): the
   * `state_reuse` candidate of requests that set `reusePreviousModel`.
   */
  previousModel?: string;
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
 */
export function createRunContext<Ctx>(
  defaults: ContextDefaults,
  config: Partial<RunConfig>,
  data: Ctx,
  options: ContextOptions = {},
): LiveRunContext<Ctx> {
  const clock = options.clock ?? defaults.clock;
  const ids = options.ids ?? defaults.ids;
  const engine = options.durable;
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
  const events = options.events ?? new EventSink(full.rootRunId ?? full.runId, { clock });
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
    ...(options.durability === undefined ? {} : { durability: resolveDurability(options.durability) }),
    ...(engine === undefined ? {} : { durable: engine }),
  });
}

/** The smaller of two optional timeouts. */
function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
