import type { RunResult, SteeringCommand } from "@tinyagents/harness";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import type { ErrorSummary, JsonObject, JsonValue, Message } from "@tinyagents/inference";

/**
 * What starts a run: the body of an agent workflow's `run` handler (and of a thread's `submit`).
 * Plain JSON. The run id is the workflow key, never part of the body.
 */
export interface RestateRunRequest {
  /** The user prompt, one message or several. */
  input: string | Message | Message[];
  /** The conversation: memory loads and saves its history (a thread submission sets it). */
  threadId?: string;
  /** A registered model name for this run (default: the agent's). */
  model?: string;
  tags?: string[];
  metadata?: JsonObject;
  /** Set when a parent run invoked this one as a child (`DurableContext.child`). */
  parentRunId?: string;
}

/** What a thread's `submit` handler takes: the agent and run id, plus the run's request. */
export interface ThreadSubmission extends Omit<RestateRunRequest, "threadId"> {
  agent: string;
  runId: string;
}

/**
 * Where a run is. `waiting`: blocked on durable promises (`waitingFor`), e.g. a human approval;
 * `paused`: waiting for resume — a steering `pause` or a middleware interrupt stopped it, and it
 * waits on its resume signal (`resumeSignal`) until `RestateAgentClient.resume` sends it.
 */
export type RestateRunPhase = "running" | "waiting" | "paused" | "completed" | "failed";

/** The status a run's workflow keeps in its state (read by the shared `status` handler). */
export interface RestateRunStatus {
  agent: string;
  runId: string;
  threadId?: string;
  phase: RestateRunPhase;
  /** Durable promises the run waits on now (`approval:<runId>/<callId>`, …). */
  waitingFor: string[];
  /** Phase `paused`: the resume signal the run waits on (`resume:<runId>/<n>`, see `resumeSignalName`). */
  resumeSignal?: string;
  /**
   * The human approvals the run waits on now: each names the call and the hash of its tool name
   * and arguments, which `RestateAgentClient.approve` may pass to approve exactly that call.
   */
  pendingApprovals?: ApprovalWait[];
  /** SHA-256 of the request that started the run: a start of the same run id with another request is `conflict`. */
  requestHash?: string;
  startedAt: number;
  updatedAt: number;
  finishedAt?: number;
  stopReason?: string;
  error?: ErrorSummary;
}

/**
 * What an agent workflow returns: the finished run — transcript, usage, cost, resolved model,
 * stop reason, final text, structured answer — as `result` (a JSON copy of the harness's
 * `RunResult`). A run that failed inside the agent (a provider that stayed down, a limit, a
 * cancelled invocation) is a workflow that completed with `state: "failed"`, its `error` and the
 * partial run: Restate does not retry an agent's decision.
 */
export interface RestateRunOutcome {
  agent: string;
  runId: string;
  threadId?: string;
  state: "completed" | "failed";
  startedAt: number;
  finishedAt: number;
  result: RunResult & JsonValue;
  error?: ErrorSummary;
}

/** Body of the shared `approve` / `reject` handlers. */
export interface ApprovalDecision {
  /** `ApprovalRecord.id` / the `approval.requested` event's id: `<runId>/<callId>`. */
  approvalId: string;
  /** Required to reject: what the model reads. */
  reason?: string;
  /**
   * The `argumentsHash` of the call being decided (from `approval.requested` or the status's
   * `pendingApprovals`): when given, a decision for a call with other arguments is `conflict`.
   */
  argumentsHash?: string;
  /** Epoch ms after which a worker refuses the decision (`unavailable`): the client stopped waiting. */
  expiresAt?: number;
}

/** Body of the shared `signal` handler: resolve durable promise `name` with `value`. */
export interface SignalRequest {
  name: string;
  value?: JsonValue;
}

/** Body of the shared `steer` handler. */
export interface SteerRequest {
  command: SteeringCommand;
}

/** What `steer` answers: the command's position in the run's steering sequence. */
export interface SteerReceipt {
  sequence: number;
}
