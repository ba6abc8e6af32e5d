import type { Clock } from "@tinyagents/inference";
import type { RunConfig } from "../config/run-config.js";
import type { AgentEvent, ModelDeltaEvent } from "../contracts/agent-event.js";
import type { ChildRunSummary } from "../contracts/child-run-summary.js";
import type { DurableContext } from "../contracts/durable-context.js";
import type { EventScope } from "../contracts/event-scope.js";
import type { RunContext } from "../contracts/run-context.js";
import type { RunEventSink } from "../contracts/run-event-sink.js";
import type { RunStores } from "../contracts/run-stores.js";
import type { RunWorkspace } from "../contracts/run-workspace.js";
import type { RunCheckpoints } from "../durability/checkpoint-contract.js";
import { CountingDurableContext } from "../durability/counting-durable-context.js";
import { InProcessDurableContext } from "../durability/in-process-durable-context.js";
import type { ResolvedDurability } from "../durability/run-durability.js";
import type { IdGenerator } from "../ids/id-generator.js";
import type { LimitTracker } from "../limits/limit-tracker.js";
import type { HarnessRunStatus, RunStatusTracker } from "../status/run-status.js";
import type { SteeringHandle } from "../steering/steering-handle.js";
import { AbortHub } from "./abort-hub.js";
import { type ControlRequest, controlPrecedence } from "./control.js";

/** Everything a LiveRunContext is built from. */
export interface RunContextInit<Ctx> {
  config: RunConfig;
  data: Ctx;
  stores: RunStores;
  events: RunEventSink;
  clock: Clock;
  ids: IdGenerator;
  /** The run's abort state (cancelling the run aborts it); a fresh one when omitted. */
  abort?: AbortHub;
  /**
   * The caller's signal: each run in this context follows it while it executes, and unlinks
   * when it ends (so a long-lived caller signal collects no listeners).
   */
  callerSignal?: AbortSignal;
  limits: LimitTracker;
  /** Runtime control of the run (commands drained at checkpoints). */
  steering?: SteeringHandle;
  /** The filesystem sandbox tools must respect (`ctx.run.workspace` in every tool call). */
  workspace?: RunWorkspace;
  /** A model resolved earlier, offered to requests with `reusePreviousModel` (see `ContextOptions`). */
  previousModel?: string;
  /** Liveness of the run (owner, lease), when enabled. */
  durability?: ResolvedDurability;
  /** The execution engine's durable context (default: in process, see `RunContext.durable`). */
  durable?: DurableContext;
}

/**
 * The brand of a {@link LiveRunContext}: a registered symbol (`Symbol.for`), not `instanceof`,
 * so a child agent from another copy of `@tinyagents/harness` still sees its parent's
 * durability and streaming mode (as `AgentRunError.isAgentRunError` does for errors).
 */
const liveRunBrand: unique symbol = Symbol.for("tinyagents.liveRunContext");

/**
 * The harness's implementation of {@link RunContext} (what tools, middleware and hooks see of a
 * run, `ctx.run`), plus the loop's plumbing behind it: the abort hub, the caller's signal link,
 * the status tracker, child-run folding, pending control requests and liveness. Built once per
 * run by the runtime (`createRunContext`); no global state: two runs never share one (a
 * sub-agent gets its own, sharing the parent's sink and signal).
 */
export class LiveRunContext<Ctx = unknown> implements RunContext<Ctx> {
  /**
   * @internal Marks the harness's own context across copies of the package (see `liveRunOf`). It
   * lives on the prototype, so a spread copy of a context (a stand-in built by hand) is not branded.
   */
  declare readonly [liveRunBrand]: true;
  readonly config: RunConfig;
  readonly data: Ctx;
  readonly stores: RunStores;
  readonly events: RunEventSink;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** @internal The run's abort state: cheap checks and fan-out for the loop's races. */
  readonly abortHub: AbortHub;
  readonly limits: LimitTracker;
  private statusTracker: RunStatusTracker | undefined;
  private readonly callerSignal: AbortSignal | undefined;
  private childFold: ((target: never, child: ChildRunSummary) => void) | undefined;
  private childFoldTarget: unknown;
  /** Runtime control of the run; unset means no steering (and no cost at checkpoints). */
  steering: SteeringHandle | undefined;
  /** The filesystem sandbox of the run, if any; enforce paths with `workspace.enforce(path)`. */
  workspace: RunWorkspace | undefined;
  /** A model resolved earlier (a previous run, a graph's state), reusable by `reusePreviousModel`. */
  readonly previousModel: string | undefined;
  /** The envelope every event of this run carries. */
  readonly scope: EventScope;
  /** Liveness (owner and lease) of runs in this context; undefined: no heartbeats. */
  readonly durability: ResolvedDurability | undefined;
  /**
   * Whether an engine journals this run (a `durable` context other than the in-process one was
   * given): the loop then routes model calls, tool calls and child runs through `durable.step` /
   * `durable.child`, and waits for approvals with `durable.awaitSignal` instead of pausing.
   */
  readonly journaled: boolean;
  private durableValue: DurableContext | undefined;
  private pendingControl: ControlRequest | undefined;
  /**
   * @internal Whether runs in this context stream their model calls (`model.*_delta` events): set
   * by a streaming entry point, and inherited by sub-agents so their deltas reach the parent's
   * stream too (with the child's run id and depth).
   */
  streamsDeltas = false;

  constructor(init: RunContextInit<Ctx>) {
    this.config = init.config;
    this.data = init.data;
    this.stores = init.stores;
    this.events = init.events;
    this.clock = init.clock;
    this.ids = init.ids;
    this.abortHub = init.abort ?? new AbortHub();
    this.callerSignal = init.callerSignal;
    this.limits = init.limits;
    this.steering = init.steering;
    this.workspace = init.workspace;
    this.previousModel = init.previousModel;
    this.durability = init.durability;
    // An engine whose model steps double as "once" intents: the loop counts what THIS run journals
    // through it (see `CountingDurableContext`); a child run given its parent's view counts its own.
    const engine = init.durable instanceof CountingDurableContext ? init.durable.inner : init.durable;
    this.durableValue = engine?.modelStepIsIntent === true ? new CountingDurableContext(engine) : engine;
    this.journaled = init.durable !== undefined && init.durable.engine !== "in-process";
    const scope: EventScope = {
      runId: init.config.runId,
      rootRunId: init.config.rootRunId ?? init.config.runId,
      depth: init.config.depth,
    };
    if (init.config.parentRunId !== undefined) scope.parentRunId = init.config.parentRunId;
    this.scope = scope;
  }

  /** Aborts when the run is cancelled (a standard signal, built on first read). */
  get signal(): AbortSignal {
    return this.abortHub.signal;
  }

  /** Whether the run was cancelled (cheaper than `signal.aborted`: builds no signal). */
  get aborted(): boolean {
    return this.abortHub.aborted;
  }

  /**
   * The seam to the execution engine (see `DurableContext`): the one given to the run, else an
   * `InProcessDurableContext` over this run's clock, ids and checkpoint store (built on first read:
   * a run that never needs it allocates nothing).
   */
  get durable(): DurableContext {
    this.durableValue ??= new InProcessDurableContext({
      clock: this.clock,
      ids: this.ids,
      runId: this.config.runId,
      ...(this.durability?.checkpoints === undefined ? {} : { checkpoints: leaseIntents(this.durability) }),
    });
    return this.durableValue;
  }

  /**
   * @internal Journaled operations this run started on its engine, when the engine's model steps
   * double as `"once"` intents (`DurableContext.modelStepIsIntent`); else `undefined`.
   */
  get durableOperations(): number | undefined {
    return this.durableValue instanceof CountingDurableContext ? this.durableValue.operations : undefined;
  }

  get runId(): string {
    return this.config.runId;
  }

  get threadId(): string | undefined {
    return this.config.threadId;
  }

  get depth(): number {
    return this.config.depth;
  }

  /**
   * @internal Follow the caller's signal (at once if it already aborted) until the returned
   * function is called; the loop calls it when a run in this context starts, and unlinks at its end.
   */
  linkCaller(): () => void {
    return this.abortHub.follow(this.callerSignal);
  }

  /** Cancel the run: every checkpoint, model call, stream and tool sees the abort. */
  cancel(reason?: unknown): void {
    this.abortHub.abort(reason);
  }

  /** The live status record of the run executing in this context (a copy). */
  status(): HarnessRunStatus | undefined {
    return this.statusTracker?.snapshot();
  }

  /**
   * @internal `status()?.cost.total` without copying the status record: `budgetMiddleware` reads
   * it around every model call.
   */
  costTotal(): number | undefined {
    return this.statusTracker?.costTotal();
  }

  /** @internal Attach the status tracker of the run executing in this context. */
  attachStatus(tracker: RunStatusTracker): void {
    this.statusTracker = tracker;
  }

  /**
   * @internal Set by the loop: how a finished child run is rolled into this run's totals
   * (`fold(target, child)`: a module function and the run's session, no closure per run).
   */
  attachChildFold<T>(target: T, fold: (target: T, child: ChildRunSummary) => void): void {
    this.childFoldTarget = target;
    this.childFold = fold as (target: never, child: ChildRunSummary) => void;
  }

  /**
   * Roll a finished sub-agent run into the run executing in this context: its usage and cost
   * are added to this run's totals and status, and it is listed in `run.children`. `SubAgent`
   * calls this; a no-op when no run is executing in this context.
   */
  recordChild(child: ChildRunSummary): void {
    this.childFold?.(this.childFoldTarget as never, child);
  }

  /** Emit an event on this run's sink; returns its offset. */
  emit(event: AgentEvent): number {
    return this.events.emit(this.scope, event);
  }

  /**
   * Whether anyone listens to this run's events. The loop's per-step events are built only when
   * true; otherwise `skipEvent` takes their offset, so offsets and event ids stay the same.
   */
  get observed(): boolean {
    return this.events.hasListeners;
  }

  /** Take the offset of an event nobody listens to (see `observed`), as `emit` would; returns it. */
  skipEvent(): number {
    const events = this.events;
    const offset = events.offset;
    events.advanceTo(offset + 1);
    return offset;
  }

  /** Emit a streamed model delta on this run's sink (see `EventSink.emitDelta`); returns its offset. */
  emitDelta(event: ModelDeltaEvent): number {
    return this.events.emitDelta(this.scope, event);
  }

  /** Ask the loop to stop or pause at its next checkpoint. A lower-precedence request never replaces a higher one. */
  requestControl(request: ControlRequest): void {
    if (
      this.pendingControl === undefined ||
      controlPrecedence(request) >= controlPrecedence(this.pendingControl)
    ) {
      this.pendingControl = request;
    }
  }

  /** Take (and clear) the pending control request. */
  takeControl(): ControlRequest | undefined {
    const request = this.pendingControl;
    this.pendingControl = undefined;
    return request;
  }

  /** The pending control request, left pending (the loop peeks after `beforeModel` / `afterModel`). */
  peekControl(): ControlRequest | undefined {
    return this.pendingControl;
  }
}

Object.defineProperty(LiveRunContext.prototype, liveRunBrand, { value: true });

/**
 * The harness's own context behind a run's `RunContext` (what a tool or middleware hands on as
 * `ctx.run`), or undefined for one built by hand (a unit test's stand-in): a sub-agent reads its
 * parent's liveness and streaming mode from it.
 */
export function liveRunOf<Ctx>(run: RunContext<Ctx>): LiveRunContext<Ctx> | undefined {
  return (run as Partial<Record<typeof liveRunBrand, unknown>> | undefined)?.[liveRunBrand] === true
    ? (run as LiveRunContext<Ctx>)
    : undefined;
}

/**
 * The intents of a checkpointed run's `"once"` calls, through its lease (fenced: a process that
 * lost the run records nothing), read when the call happens (the loop takes the lease first).
 */
function leaseIntents(durability: ResolvedDurability): RunCheckpoints {
  const target = (): RunCheckpoints => durability.lease ?? (durability.checkpoints as RunCheckpoints);
  return {
    intent: (runId, callId) => target().intent(runId, callId),
    recordIntent: (intent) => target().recordIntent(intent),
  };
}
