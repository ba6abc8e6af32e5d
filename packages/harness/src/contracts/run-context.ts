import type { Clock } from "@tinyagents/inference";
import type { AgentEvent, ModelDeltaEvent } from "./agent-event.js";
import type { ChildRunSummary } from "./child-run-summary.js";
import type { ControlRequest } from "./control-request.js";
import type { DurableContext } from "./durable-context.js";
import type { EventScope } from "./event-scope.js";
import type { IdGenerator } from "./id-generator.js";
import type { RunConfig } from "./run-config.js";
import type { RunEventSink } from "./run-event-sink.js";
import type { RunLimitTracker } from "./run-limits.js";
import type { HarnessRunStatus } from "./run-status.js";
import type { RunSteering } from "./run-steering.js";
import type { RunStores } from "./run-stores.js";
import type { RunWorkspace } from "./run-workspace.js";

/**
 * What tools, middleware and hooks see of a live run (`ctx.run`): its config, the caller's data,
 * stores, event sink, clock, ids, cancellation, limits, and slots for steering and workspace.
 * The harness builds one per run (a sub-agent gets its own, sharing the parent's sink and
 * signal); no global state. An interface, so the contracts name no implementation: the harness's
 * own (in `context/`) adds the loop's plumbing behind it.
 */
export interface RunContext<Ctx = unknown> {
  readonly config: RunConfig;
  /** The caller's context data (`context` of `agent.run`). */
  readonly data: Ctx;
  readonly stores: RunStores;
  readonly events: RunEventSink;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly limits: RunLimitTracker;
  /** Runtime control of the run; unset means no steering. */
  steering: RunSteering | undefined;
  /** The filesystem sandbox of the run, if any; enforce paths with `workspace.enforce(path)`. */
  workspace: RunWorkspace | undefined;
  /** A model resolved earlier (a previous run, a graph's state), reusable by `reusePreviousModel`. */
  readonly previousModel: string | undefined;
  /** The envelope every event of this run carries. */
  readonly scope: EventScope;
  /**
   * Whether an engine journals this run: the loop then routes model calls, tool calls and child
   * runs through `durable.step` / `durable.child`, and waits for approvals with
   * `durable.awaitSignal` instead of pausing.
   */
  readonly journaled: boolean;
  /** The seam to the execution engine (in process unless an engine runs the run). */
  readonly durable: DurableContext;
  /** Aborts when the run is cancelled. Pass it on to I/O. */
  readonly signal: AbortSignal;
  /** Whether the run was cancelled (cheaper than `signal.aborted`). */
  readonly aborted: boolean;
  readonly runId: string;
  readonly threadId: string | undefined;
  /** Nesting depth: 0 for a top-level run, parent + 1 for a sub-agent. */
  readonly depth: number;
  /** Cancel the run: every checkpoint, model call, stream and tool sees the abort. */
  cancel(reason?: unknown): void;
  /** The live status record of the run executing in this context (a copy). */
  status(): HarnessRunStatus | undefined;
  /**
   * Roll a finished sub-agent run into the run executing in this context: its usage and cost are
   * added to this run's totals and status, and it is listed in `run.children`.
   */
  recordChild(child: ChildRunSummary): void;
  /** Emit an event on this run's sink; returns its offset. */
  emit(event: AgentEvent): number;
  /** Emit a streamed model delta on this run's sink; returns its offset. */
  emitDelta(event: ModelDeltaEvent): number;
  /** Ask the loop to stop or pause at its next checkpoint. A lower-precedence request never replaces a higher one. */
  requestControl(request: ControlRequest): void;
}
