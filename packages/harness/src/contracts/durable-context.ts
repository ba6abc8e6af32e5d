import type { JsonValue } from "@tinyagents/inference";

/**
 * What a durable step may return: plain JSON (an engine journals it and hands the same value back
 * on replay). `undefined` is allowed and means "nothing recorded".
 */
export type DurableValue = JsonValue | undefined;

/** Options of one {@link DurableContext.step}. */
export interface DurableStepOptions {
  /**
   * What the step is, for the engine's journal and the ledger: `model` (one model call with its
   * retries and fallback), `tool` (one tool call, at-least-once, carries the idempotency key),
   * `intent` / `result` (the two steps of a `sideEffects: "once"` tool), `memory`, `other`.
   */
  kind: "model" | "tool" | "intent" | "result" | "memory" | "other";
  /** The idempotency key of a tool step (`runId:callId`), also on the tool's context. */
  idempotencyKey?: string;
}

/**
 * What a human approval wait is for: the tool call, and a hash of its tool name and arguments
 * (`approvalArgumentsHash`). An engine keeps it beside the wait so a decision that names
 * anything else (an unknown run, a call that is not waiting, other arguments) can be refused
 * instead of being stored for whatever later waits under that name.
 */
export interface ApprovalWait {
  /** `<runId>/<callId>`, as in the `approval.requested` event. */
  approvalId: string;
  callId: string;
  toolName: string;
  /** `approvalArgumentsHash(toolName, arguments)`, also on the `approval.requested` event. */
  argumentsHash: string;
}

/** Options of one {@link DurableContext.awaitSignal}. */
export interface AwaitSignalOptions {
  /** Give up after this long (engine time); the wait then resolves `undefined`. */
  timeoutMs?: number;
  /** Set when the wait is a human approval (see {@link ApprovalWait}). */
  approval?: ApprovalWait;
}

/** Options of one {@link DurableContext.child}. */
export interface DurableChildOptions {
  /** Idempotent key of the child run (default: a derived id); the same key never runs twice. */
  runId?: string;
  /**
   * The child agent's registered name at the engine and its JSON input: an engine that can place
   * the child on another worker invokes that agent there instead of calling `fn` here. Without
   * them the child runs here, inside one recorded step.
   */
  agent?: string;
  input?: JsonValue;
}

/**
 * THE seam between the run loop and an execution engine: everything nondeterministic the loop
 * does goes through it, so the one loop runs unchanged in process, inside a Restate workflow or
 * inside a DBOS workflow. The in-process default (`inProcessDurableContext`) calls straight
 * through; an engine journals each step and, when a crashed run is re-driven on another worker,
 * replays recorded steps instead of executing them again.
 *
 * Contract every implementation keeps:
 * - `step(name, fn)`: names are unique within a run and deterministic (derived from the run id
 *   and call ids, never from time or randomness). A step that completed is never executed again
 *   for the same run: its recorded value is returned. A step that was in flight when its worker
 *   died runs again (at-least-once) — callers that must not repeat use an intent step first.
 *   A step that throws records the failure: replay throws an equivalent `TinyAgentsError`.
 * - `now()` / `randomId()`: the same values on replay as on the first execution.
 * - `awaitSignal(name)`: a durable wait (human approval, steering, resume) that survives the
 *   worker; `signal(name, value)` from anywhere completes it exactly once. A signal sent before
 *   the wait starts is kept and completes the wait at once. The names the loop waits on are
 *   built by `approvalSignalName` (value: an `ApprovalSignal`) and `resumeSignalName` (a paused
 *   run; value: a `ResumeSignal`).
 * - `child(name, fn)`: a sub-run that the engine may place on another worker; its result is
 *   recorded like a step's.
 */
export interface DurableContext {
  /** `in-process`, `restate`, `dbos`, … (reported on events and status records). */
  readonly engine: string;
  /**
   * How long a paused journaled run waits for its resume signal (`resumeSignalName`); when it
   * passes the run ends paused (`run.paused`, stop reason `interrupted`) as in process. Default:
   * no limit.
   */
  readonly resumeTimeoutMs?: number;
  /**
   * Optional, for an engine whose `await step(...)` resolves only once the engine stored the
   * step's result (so no later execution can execute that step again): the model step that
   * proposed a `sideEffects: "once"` call then doubles as the call's intent, and the call is
   * ONE `result:<callId>` step instead of `intent:` + `result:` (one round trip less). Used only
   * when the run did nothing else durable between that model step and the tool phase (an
   * approval wait, a pause, a hook's step: then the intent step is kept, see `onceToolSteps`).
   */
  readonly modelStepIsIntent?: boolean;
  /** Run `fn` once for this run and record its JSON result; on replay return the recording. */
  step<T extends DurableValue>(name: string, fn: () => Promise<T>, options: DurableStepOptions): Promise<T>;
  /** Wall-clock milliseconds, recorded: replay sees the first execution's value. */
  now(): number;
  /**
   * A fresh unique id, recorded: replay sees the first execution's value. `prefix` (for example
   * `run`, or a sub-agent's `<name>-d1`) starts the id: `<prefix>-<unique>`; an implementation
   * that ignores it still works (ids only need to be unique and replayed).
   */
  randomId(prefix?: string): string;
  /**
   * Optional: make a human approval known to the engine before the loop announces it
   * (`approval.requested`), so a decision sent as soon as the event is seen finds it pending.
   * An engine that checks decisions against what the run waits on implements it; the wait
   * itself is `awaitSignal(approvalSignalName(id), { approval })`.
   */
  openApproval?(wait: ApprovalWait): Promise<void>;
  /** Wait durably for `name` to be signalled; `undefined` when `timeoutMs` passed first. */
  awaitSignal<T extends DurableValue>(name: string, options?: AwaitSignalOptions): Promise<T | undefined>;
  /** Run a child run (a sub-agent) as its own durable unit; its result is recorded. */
  child<T extends DurableValue>(
    name: string,
    fn: () => Promise<T>,
    options?: DurableChildOptions,
  ): Promise<T>;
}
