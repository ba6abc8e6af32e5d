import { randomUUID } from "node:crypto";
import {
  type RunOptions as RestateRunOptions,
  type Serde,
  serde,
  TimeoutError,
  type WorkflowContext,
} from "@restatedev/restate-sdk";
import type { ArtifactStore, DurableContext } from "@tinyagents/harness";
import type {
  AwaitSignalOptions,
  DurableChildOptions,
  DurableStepOptions,
  DurableValue,
} from "@tinyagents/harness/durability";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import { isErrorCode, type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { agentWorkflowName, STARTED_AT_HEADER, startedAtHeader } from "../naming/naming.js";
import { DEFAULT_MAX_STEP_BYTES, fitStepValue } from "./journal-limits.js";
import { fromRestateFailure, toRestateFailure } from "./step-failure.js";
import { inStep, runInStep } from "./step-scope.js";

/** Retries of a step that failed with a retryable error (see `RETRYABLE_STEP_CODES`). */
export interface StepRetryPolicy {
  /** Attempts in all, the first included (default 3); then the step fails terminally. */
  maxAttempts?: number;
  /** First retry delay (default 100 ms), doubling up to `maxIntervalMs` (default 5 s). */
  initialIntervalMs?: number;
  maxIntervalMs?: number;
}

/** Options of a {@link RestateDurableContext}. */
export interface RestateDurableOptions {
  /** Largest journaled step value, in bytes (default 1 MiB: see `DEFAULT_MAX_STEP_BYTES`). */
  maxStepBytes?: number;
  /** Where tool outputs too large to journal go (else such a step fails with `limit_exceeded`). */
  artifacts?: ArtifactStore;
  /** Retries of retryable step failures. */
  stepRetry?: StepRetryPolicy;
  /** The Restate workflow that runs agent `name` (default `agentWorkflowName`). */
  workflowName?: (agent: string) => string;
  /**
   * Agents a child run may be invoked as on another worker (the names `restateAgents` serves). A
   * child whose agent is not among them runs here, inside one step. Default: none.
   */
  remoteAgents?: ReadonlySet<string>;
  /**
   * Called before every model step, outside it (it may use the context's journaled operations):
   * the workflow pulls steering commands here.
   */
  beforeModelStep?: () => Promise<void>;
  /**
   * Called with the signal names the run waits on, whenever that set changes, and the human
   * approvals among them (what each approves: `AwaitSignalOptions.approval`).
   */
  onWaiting?: (signals: readonly string[], approvals: readonly ApprovalWait[]) => void;
  /**
   * Called when the loop opens a human approval, before it announces it: the workflow records it
   * in its state, which `openApproval` then makes durable (readable by the `approve` handler).
   */
  onApprovalOpened?: (wait: ApprovalWait) => void;
  /**
   * Awaited before the run waits on a durable promise or a child run, where Restate may suspend
   * the invocation: the workflow flushes the run's journal there.
   */
  beforeWait?: () => Promise<void> | undefined;
  /**
   * The run's event sink: each step records the sink's offset when it finished, and a replayed
   * step moves the sink there again. The loop emits fewer events on replay (a replayed model step
   * emits none), so without this the events after a replay would reuse offsets the first
   * execution already delivered.
   */
  eventOffsets?: { readonly offset: number; advanceTo(offset: number): void };
  /**
   * Called as a step's closure starts, i.e. only when Restate's journal has no entry for the step
   * and THIS execution runs it (a replayed step never calls it; a retried attempt calls it
   * again). The workflow tells its journal here that a model or tool call runs again, so the new
   * attempt is written even when a dead worker journaled the end of an attempt whose step
   * Restate never stored.
   */
  onLiveStep?: (name: string, options: DurableStepOptions) => void;
}

/** What a journaled step records: its value, when it finished (the run's clock), the event offset then. */
interface StepRecord {
  v?: JsonValue;
  t: number;
  o?: number;
}

/** What the workflow of a child agent returns (see `RestateRunOutcome`): only these fields are read. */
interface ChildOutcome {
  state?: string;
  finishedAt?: number;
  result?: JsonValue;
  error?: { code?: string; message?: string };
}

/**
 * The harness's `DurableContext` over a Restate workflow's context: the one run loop, journaled by
 * Restate. Contract (see `DurableContext`):
 *
 * - `step(name, fn)` is `ctx.run(name, fn)`: a completed step is replayed from the journal and
 *   never runs again; `await step(...)` returns only after Restate acknowledged the entry (the SDK
 *   runs no second step before the previous result is durable), so an `intent` step is journaled
 *   before the tool of a `"once"` call starts. Failures are recorded as `TinyAgentsError`s (see
 *   `step-failure.ts` for which codes are terminal and which Restate retries); a value too large
 *   for a journal entry is offloaded to artifacts or fails with `limit_exceeded`.
 * - `now()` is the run's journaled clock: the time recorded by the last journaled entry (the run's
 *   start, each step's completion, each wait's end), so replay sees the same values; inside a step
 *   it is the real clock. `randomId()` is `ctx.rand.uuidv4()` (seeded by the invocation id).
 * - `awaitSignal(name)` waits on the workflow's durable promise `name` (`ctx.promise`), which any
 *   shared handler or client resolves exactly once, before or during the wait; with `timeoutMs`
 *   the wait is a durable timer (`orTimeout`) and resolves `undefined` when it fires.
 *   `openApproval(wait)` records an approval (`onApprovalOpened`) and makes it durable before
 *   the loop announces it.
 * - `child(name, fn, { agent })` invokes agent `agent`'s workflow (keyed by the child run id) —
 *   another invocation that Restate may place on any worker; several run in parallel when the loop
 *   starts several. It returns the child's run (the workflow outcome's `result`); a failed child
 *   throws its error. A child whose agent is not in `remoteAgents` (or has none) runs here,
 *   inline: its own steps are journaled one by one (a step around it would nest `ctx.run`).
 *
 * Build it with {@link RestateDurableContext.open} (it reads the run's start time: from the
 * invocation's `STARTED_AT_HEADER` when it has one, else from a journaled `ctx.date.now()`).
 */
export class RestateDurableContext implements DurableContext {
  readonly engine = "restate";
  /**
   * `await step(...)` resolves only once Restate stored the step (see the class comment): the
   * model step that proposed a `"once"` call is its intent (one round trip less per call).
   */
  readonly modelStepIsIntent = true;
  private readonly ctx: WorkflowContext;
  private readonly maxStepBytes: number;
  private readonly artifacts: ArtifactStore | undefined;
  private readonly runOptions: RestateRunOptions<StepRecord>;
  private readonly workflowName: (agent: string) => string;
  private readonly remoteAgents: ReadonlySet<string>;
  private readonly beforeModelStep: (() => Promise<void>) | undefined;
  private readonly onWaiting: RestateDurableOptions["onWaiting"];
  private readonly eventOffsets: RestateDurableOptions["eventOffsets"];
  private readonly onApprovalOpened: RestateDurableOptions["onApprovalOpened"];
  private readonly beforeWait: RestateDurableOptions["beforeWait"];
  private readonly onLiveStep: RestateDurableOptions["onLiveStep"];
  /** Signal names the run waits on now, each with the approval it is for, if it is one. */
  private readonly waiting = new Map<string, ApprovalWait | undefined>();
  private clock: number;

  /**
   * Prefer {@link RestateDurableContext.open}; `startedAt` must read the same on every execution
   * (the invocation's start header, or a journaled `ctx.date.now()`).
   */
  constructor(ctx: WorkflowContext, startedAt: number, options: RestateDurableOptions = {}) {
    this.ctx = ctx;
    this.clock = startedAt;
    this.maxStepBytes = options.maxStepBytes ?? DEFAULT_MAX_STEP_BYTES;
    if (!Number.isSafeInteger(this.maxStepBytes) || this.maxStepBytes <= 0) {
      throw new TinyAgentsError(
        "validation",
        `maxStepBytes must be a positive integer, got ${String(options.maxStepBytes)}`,
        {
          details: { field: "maxStepBytes" },
        },
      );
    }
    this.artifacts = options.artifacts;
    const retry = options.stepRetry ?? {};
    this.runOptions = {
      maxRetryAttempts: retry.maxAttempts ?? 3,
      initialRetryInterval: retry.initialIntervalMs ?? 100,
      maxRetryInterval: retry.maxIntervalMs ?? 5000,
    };
    this.workflowName = options.workflowName ?? agentWorkflowName;
    this.remoteAgents = options.remoteAgents ?? new Set();
    this.beforeModelStep = options.beforeModelStep;
    this.onWaiting = options.onWaiting;
    this.eventOffsets = options.eventOffsets;
    this.onApprovalOpened = options.onApprovalOpened;
    this.beforeWait = options.beforeWait;
    this.onLiveStep = options.onLiveStep;
  }

  /**
   * A context for `ctx` whose clock starts when the run was started: the invocation's
   * `STARTED_AT_HEADER` (stored by Restate with the invocation, so replays read the same value
   * without a round trip), else the journaled time of this call (one step).
   */
  static async open(
    ctx: WorkflowContext,
    options: RestateDurableOptions = {},
  ): Promise<RestateDurableContext> {
    return new RestateDurableContext(ctx, await RestateDurableContext.startTime(ctx), options);
  }

  /** When the run of `ctx` was started (see {@link RestateDurableContext.open}). */
  static async startTime(ctx: WorkflowContext): Promise<number> {
    return startedAtHeader(ctx.request().headers) ?? (await ctx.date.now());
  }

  async step<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options: DurableStepOptions,
  ): Promise<T> {
    if (options.kind === "model" && this.beforeModelStep !== undefined) await this.beforeModelStep();
    const { maxStepBytes, artifacts, eventOffsets, onLiveStep } = this;
    let record: StepRecord;
    try {
      record = await this.ctx.run<StepRecord>(
        name,
        () =>
          runInStep(async () => {
            try {
              onLiveStep?.(name, options);
              const value = await fitStepValue(name, await fn(), options, maxStepBytes, artifacts);
              const record: StepRecord = { t: Date.now() };
              if (value !== undefined) record.v = value;
              if (eventOffsets !== undefined) record.o = eventOffsets.offset;
              return record;
            } catch (error) {
              throw toRestateFailure(error, name);
            }
          }),
        this.runOptions,
      );
    } catch (error) {
      throw fromRestateFailure(error, name);
    }
    this.advance(record.t);
    if (record.o !== undefined) this.eventOffsets?.advanceTo(record.o);
    return record.v as T;
  }

  now(): number {
    return inStep() ? Date.now() : this.clock;
  }

  randomId(prefix = "id"): string {
    return `${prefix}-${inStep() ? randomUUID() : this.ctx.rand.uuidv4()}`;
  }

  async openApproval(wait: ApprovalWait): Promise<void> {
    this.onApprovalOpened?.(wait);
    // A journaled round trip: Restate has stored the state written above once it answers, so a
    // decision sent as soon as `approval.requested` is seen finds the approval.
    this.advance(await this.ctx.date.now());
  }

  async awaitSignal<T extends DurableValue>(
    name: string,
    options: AwaitSignalOptions = {},
  ): Promise<T | undefined> {
    await this.beforeWait?.();
    const promise = this.ctx.promise<T>(name).get();
    this.setWaiting(name, true, options.approval);
    try {
      return await (options.timeoutMs === undefined ? promise : promise.orTimeout(options.timeoutMs));
    } catch (error) {
      if (error instanceof TimeoutError) return undefined;
      throw fromRestateFailure(error, name);
    } finally {
      this.setWaiting(name, false);
      // A wait may last days: read the (journaled) time again so `now()` is not stale after it.
      this.advance(await this.ctx.date.now());
    }
  }

  async child<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options: DurableChildOptions = {},
  ): Promise<T> {
    // A local child runs inline: its model and tool calls are journaled as its own steps. Wrapping
    // it in a step would nest ctx.run calls, which Restate cannot replay (the outer closure does
    // not run on replay, so the inner entries would be missing and the journal would not match).
    if (options.agent === undefined || !this.remoteAgents.has(options.agent)) return fn();
    const runId = options.runId ?? `${this.ctx.key}.${name}`;
    await this.beforeWait?.();
    let outcome: ChildOutcome;
    try {
      outcome = await this.ctx.genericCall<JsonValue, ChildOutcome>({
        service: this.workflowName(options.agent),
        method: "run",
        key: runId,
        parameter: { input: options.input ?? null, parentRunId: this.ctx.key },
        // The parent's journaled clock: the same on every execution of the parent.
        headers: { [STARTED_AT_HEADER]: String(this.clock) },
        inputSerde: serde.json as Serde<JsonValue>,
        outputSerde: serde.json as Serde<ChildOutcome>,
        name,
      });
    } catch (error) {
      throw fromRestateFailure(error, name);
    }
    if (typeof outcome?.finishedAt === "number") this.advance(outcome.finishedAt);
    if (outcome?.state === "failed") {
      const code = outcome.error?.code;
      throw new TinyAgentsError(
        isErrorCode(code) ? code : "internal",
        `child run ${runId} (agent "${options.agent}") failed: ${outcome.error?.message ?? "no error message"}`,
        { details: { childRunId: runId, agent: options.agent } },
      );
    }
    return outcome?.result as T;
  }

  private advance(time: number): void {
    if (time > this.clock) this.clock = time;
  }

  private setWaiting(name: string, waiting: boolean, approval?: ApprovalWait): void {
    if (waiting) this.waiting.set(name, approval);
    else this.waiting.delete(name);
    const approvals = [...this.waiting.values()].filter((a): a is ApprovalWait => a !== undefined);
    this.onWaiting?.([...this.waiting.keys()], approvals);
  }
}
