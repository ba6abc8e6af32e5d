import { createHash } from "node:crypto";
import type { DurableContext } from "@tinyagents/harness";
import type {
  ApprovalSignal,
  AwaitSignalOptions,
  DurableChildOptions,
  DurableStepOptions,
  DurableValue,
} from "@tinyagents/harness/durability";
import { isResumeSignalName } from "@tinyagents/harness/durability";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import { type ErrorSummary, TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import { DBOS } from "./dbos-sdk.js";
import { APPROVALS_EVENT, RESUME_EVENT } from "./names.js";

/**
 * What one journaled step holds in DBOS's `operation_outputs`: the value (`v`) or the failure
 * (`e`, a `TinyAgentsError` summary), and the wall clock when it finished (`t`), which is what
 * {@link DbosDurableContext.now} reads so replay sees the same time.
 */
export interface StepRecord {
  v?: DurableValue;
  e?: ErrorSummary;
  t: number;
}

/**
 * How a child run of a named agent is placed: a DBOS child workflow, awaited — or `undefined`
 * when no workflow is registered for that agent (the child then runs here, inside one step).
 */
export type ChildStarter = (
  agent: string,
  runId: string,
  input: DurableValue,
) => Promise<DurableValue> | undefined;

/** A signal as sent by the client: wrapped, so a `null` value is not mistaken for a timeout. */
export interface SignalEnvelope {
  v: DurableValue | null;
}

/** One approval a run opened (the `APPROVALS_EVENT` event value maps approval ids to these). */
export interface OpenedApproval {
  wait: ApprovalWait;
  /** The decision the run received, once it did. */
  decision?: ApprovalSignal;
}

/** Hooks of {@link DbosDurableContext.open}. */
export interface DbosContextHooks {
  /** Places child runs of registered agents (see {@link ChildStarter}). */
  startChild?: ChildStarter;
  /**
   * Runs inside the workflow before every model step and after every `awaitSignal`: dbosAgents
   * pulls steering commands here, so one sent during a human wait is queued before the loop's
   * next checkpoint. (Not after tool steps: tool calls run in parallel, and pulls in completion
   * order would not replay in the same order.)
   */
  pullCommands?: () => Promise<void>;
  /**
   * Awaited before every step runs (replayed or live): dbosAgents waits here while the run's
   * journal queue is over half full, so a slow journal slows the run instead of losing events.
   * Must not call DBOS (it is no part of the workflow's recorded sequence).
   */
  beforeStep?: () => Promise<void>;
  /**
   * Called as a step's function starts, i.e. only when DBOS has no recording of the step and
   * THIS execution runs it (a replayed step never calls it). dbosAgents tells its journal here
   * that a model or tool call runs again, so the new attempt is written even when the dead
   * worker journaled the end of an attempt whose step DBOS never recorded.
   */
  onLiveStep?: (name: string, options: DurableStepOptions) => void;
}

/** `recv` needs a finite timeout; "wait for ever" is ten years (DBOS polls, no long timer). */
const FOREVER_SECONDS = 10 * 365 * 24 * 3600;

/**
 * The durable context of one run inside a DBOS workflow (the workflow's id is the run id):
 * - `step` is a DBOS step (`DBOS.runStep`) named after the step, so a step that completed is
 *   answered from the system database on recovery and never runs again; DBOS checks that the
 *   replayed sequence of step names matches (a nondeterministic loop fails loudly there). A step
 *   that throws is recorded as a failure and replays as an equivalent `TinyAgentsError`.
 * - `now()` is the workflow's recorded start time, moved forward to each step's recorded finish
 *   time as steps complete: deterministic on replay, and never a database round trip of its own.
 * - `randomId(prefix)` derives `<prefix>-<uuid>` from the run id and a counter (SHA-256): unique
 *   per run, identical on replay (the loop is deterministic), with no step to record.
 * - `awaitSignal(name)` is `DBOS.recv(name)`: the message is consumed and recorded in one
 *   transaction, so a signal completes the wait exactly once, also across a worker restart. While
 *   it waits on a resume signal (a paused run) the workflow event `RESUME_EVENT` names it; an
 *   approval wait is published in the workflow event `APPROVALS_EVENT`, with its decision once
 *   received.
 * - `child(...)` with an `agent` registered with `dbosAgents` is a DBOS child workflow of that
 *   agent (on the runs queue: any worker may run it; several in parallel when the loop starts
 *   several); otherwise a step around `fn`.
 *
 * Construct it inside the workflow with {@link DbosDurableContext.open}.
 */
export class DbosDurableContext implements DurableContext {
  readonly engine = "dbos";
  /**
   * `await step(...)` resolves only once DBOS committed the step's output (`DBOS.runStep`
   * awaits `recordOperationResult`, a transaction that also checks this execution still owns
   * the workflow, so no other execution's record of the same step can land). A recovered
   * workflow re-runs only steps with no recorded output. So the model step that proposed a
   * `"once"` call is its intent (one step less per call), as on Restate.
   */
  readonly modelStepIsIntent = true;
  private clock: number;
  private ids = 0;
  /** Every approval the run opened, published as the workflow event `APPROVALS_EVENT` event. */
  private readonly approvals: Record<string, OpenedApproval> = {};

  private constructor(
    readonly runId: string,
    startedAt: number,
    private readonly hooks: DbosContextHooks,
  ) {
    this.clock = startedAt;
  }

  /**
   * The context of the workflow running now. Records the start time as the workflow's first
   * step. Throws `validation` outside a DBOS workflow.
   */
  static async open(hooks: DbosContextHooks = {}): Promise<DbosDurableContext> {
    const runId = DBOS.workflowID;
    if (runId === undefined || !DBOS.isInWorkflow()) {
      throw new TinyAgentsError(
        "validation",
        "DbosDurableContext.open must be called inside a DBOS workflow (register the agent with dbosAgents)",
      );
    }
    const startedAt = await DBOS.runStep(async () => Date.now(), { name: "tinyagents.start" });
    return new DbosDurableContext(runId, startedAt, hooks);
  }

  async step<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options: DurableStepOptions,
  ): Promise<T> {
    const pull = this.hooks.pullCommands;
    if (pull !== undefined && options.kind === "model") await pull();
    await this.hooks.beforeStep?.();
    let thrown: { error: unknown } | undefined;
    const record = await DBOS.runStep(
      async (): Promise<StepRecord> => {
        this.hooks.onLiveStep?.(name, options);
        try {
          const value = await fn();
          return value === undefined ? { t: Date.now() } : { v: value, t: Date.now() };
        } catch (error) {
          thrown = { error };
          return { e: toTinyAgentsError(error).toJSON(), t: Date.now() };
        }
      },
      { name },
    );
    if (record.t > this.clock) this.clock = record.t;
    if (record.e !== undefined) {
      // First execution: the original error (its class and cause); replay: its recorded summary.
      if (thrown !== undefined) throw thrown.error;
      throw replayedError(record.e);
    }
    return record.v as T;
  }

  now(): number {
    return this.clock;
  }

  randomId(prefix = "id"): string {
    const hex = createHash("sha256")
      .update(`${this.runId}\u0000${this.ids++}`)
      .digest("hex");
    return `${prefix}-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  }

  /** Publish the approval (the client refuses a decision for anything the run did not open). */
  async openApproval(wait: ApprovalWait): Promise<void> {
    this.approvals[wait.approvalId] = { wait };
    await DBOS.setEvent(APPROVALS_EVENT, this.approvals);
  }

  async awaitSignal<T extends DurableValue>(
    name: string,
    options: AwaitSignalOptions = {},
  ): Promise<T | undefined> {
    const timeoutSeconds = options.timeoutMs === undefined ? FOREVER_SECONDS : options.timeoutMs / 1000;
    // A paused run publishes what it waits on, so a client can see it and send the resume signal.
    const resume = isResumeSignalName(name);
    if (resume) await DBOS.setEvent(RESUME_EVENT, name);
    const approval = options.approval;
    if (approval !== undefined && this.approvals[approval.approvalId] === undefined) {
      await this.openApproval(approval);
    }
    const message = await DBOS.recv<SignalEnvelope>(name, { timeoutSeconds });
    if (resume) await DBOS.setEvent(RESUME_EVENT, "");
    if (approval !== undefined && message !== null) {
      this.approvals[approval.approvalId] = { wait: approval, decision: message.v as ApprovalSignal };
      await DBOS.setEvent(APPROVALS_EVENT, this.approvals);
    }
    await this.hooks.pullCommands?.();
    if (message === null) return undefined;
    return (message.v ?? undefined) as T | undefined;
  }

  async child<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options: DurableChildOptions = {},
  ): Promise<T> {
    const { startChild } = this.hooks;
    if (options.agent !== undefined && startChild !== undefined) {
      const runId = options.runId ?? `${this.runId}/${name}`;
      const placed = startChild(options.agent, runId, options.input);
      if (placed !== undefined) return (await placed) as T;
    }
    return this.step(name, fn, { kind: "other" });
  }
}

function replayedError(summary: ErrorSummary): TinyAgentsError {
  const options = summary.details === undefined ? {} : { details: summary.details };
  return new TinyAgentsError(summary.code, summary.message, options);
}
