import { connect, HttpCallError, type Ingress, Opts, SendOpts } from "@restatedev/restate-sdk-clients";
import type { EventRecord, HarnessEventJournal, SteeringCommand } from "@tinyagents/harness";
import { type ResumeSignal, validateResumeSignal } from "@tinyagents/harness/durability";
import {
  displayUrl,
  type ErrorCode,
  type JsonValue,
  registerSecrets,
  secretsFromConfig,
  TinyAgentsError,
} from "@tinyagents/inference";
import { agentWorkflowName, STARTED_AT_HEADER, threadObjectName } from "../naming/naming.js";
import { taggedFailure } from "../services/handler-errors.js";
import type {
  ApprovalDecision,
  RestateRunOutcome,
  RestateRunRequest,
  RestateRunStatus,
  SignalRequest,
  SteerReceipt,
  SteerRequest,
  ThreadSubmission,
} from "../services/run-protocol.js";
import { requestHash } from "../services/run-request.js";
import { type EventStreamOptions, tailJournal } from "./tail-journal.js";
import { pollStatus, type StatusCondition, type WaitForStatusOptions } from "./wait-for-status.js";

/** Options of a {@link RestateAgentClient}. */
export interface RestateAgentClientOptions {
  /** Restate's HTTP ingress, e.g. `http://127.0.0.1:8080`. */
  ingressUrl: string;
  /** Headers for every request (an API key for Restate Cloud, …). */
  headers?: Record<string, string>;
  /** The journal the workers write live events to (`restateAgents({ events })`): `events()` tails it. */
  journal?: HarnessEventJournal;
  /** Service name prefix, as given to `restateAgents` (default `tinyagents`). */
  servicePrefix?: string;
  /**
   * How long `approve` / `reject` wait for a worker to check and apply the decision (default
   * 5000 ms): past it they throw `unavailable`, and a worker that takes the decision later
   * refuses it, so nothing changes. Restate runs every handler on a worker, so with every worker
   * down a decision cannot be checked sooner. Also how long a start that finds its run id taken
   * waits to compare its request with the run's.
   */
  decisionTimeoutMs?: number;
}

/** Options of {@link RestateAgentClient.approve} and {@link RestateAgentClient.reject}. */
export interface DecisionOptions {
  /**
   * The `argumentsHash` of the call decided on (from its `approval.requested` event or the
   * status's `pendingApprovals`): the decision is refused (`conflict`) if the call waiting under
   * that approval id has other arguments.
   */
  argumentsHash?: string;
  /** Overrides the client's `decisionTimeoutMs` for this decision. */
  timeoutMs?: number;
}

/**
 * Options of {@link RestateAgentClient.approve}: an approval names the call the human reviewed,
 * so it can never approve a call whose tool or arguments changed: a missing hash is
 * `validation`, a different one `conflict`, nothing decided.
 */
export interface ApproveOptions extends DecisionOptions {
  argumentsHash: string;
}

/** What {@link RestateAgentClient.start} answers. */
export interface StartedRun {
  runId: string;
  invocationId: string;
  /** `PreviouslyAccepted`: the run id was started before; nothing new was started. */
  status: "Accepted" | "PreviouslyAccepted";
}

/** What {@link RestateAgentClient.enqueue} answers: the queued run and a way to await it. */
export interface QueuedRun extends StartedRun {
  /** Wait for the run's outcome (after the runs queued before it on the thread). */
  result(): Promise<RestateRunOutcome>;
}

/** Options of a run started by the client (the request without its input). */
export type StartOptions = Omit<RestateRunRequest, "input" | "parentRunId">;

/** The agent workflow's handlers as the ingress sees them (the context argument is dropped). */
type AgentWorkflowApi = {
  run(ctx: unknown, request: RestateRunRequest): Promise<RestateRunOutcome>;
  approve(ctx: unknown, body: ApprovalDecision): Promise<void>;
  reject(ctx: unknown, body: ApprovalDecision): Promise<void>;
  steer(ctx: unknown, body: SteerRequest): Promise<SteerReceipt>;
  signal(ctx: unknown, body: SignalRequest): Promise<void>;
  status(ctx: unknown): Promise<RestateRunStatus | null>;
};

type ThreadApi = {
  submit(ctx: unknown, body: ThreadSubmission): Promise<RestateRunOutcome>;
};

type Input = RestateRunRequest["input"];

/** How often a start that found its run id taken looks for the first execution's request hash. */
const REQUEST_HASH_POLL_MS = 50;

/**
 * A typed client of agents served by `restateAgents`, over Restate's HTTP ingress
 * (`@restatedev/restate-sdk-clients`). Runs are addressed by agent name and run id:
 *
 * - `start(agent, runId, input)` submits the run's workflow, idempotently: the same run id never
 *   starts twice (`status: "PreviouslyAccepted"`); `run` also waits for the outcome.
 * - `submit(threadId, agent, runId, input)` queues the run on its thread (one at a time, in order).
 * - `result` attaches to the run and waits for its {@link RestateRunOutcome}; `output` peeks.
 * - `approve` / `reject`, `steer`, `signal`, `status` reach the run's shared handlers; `resume`
 *   continues a run paused by steering or a middleware interrupt (status phase `paused`).
 * - `events(runId)` tails the live event journal the workers write.
 *
 * Failures are `TinyAgentsError`s with the code and message the handler failed with (the
 * harness's own: `validation` for an input it refused, `not_found` for an approval the run does
 * not wait on, …) and Restate's HTTP status in `details.status`. Restate's own refusals map by
 * status: `validation` (400), `steering` (403), `not_found` (404: an unknown agent or run),
 * `conflict` (409), `limit_exceeded` (429), `unavailable` (502–504, or no answer in time),
 * anything else `internal`.
 */
export class RestateAgentClient {
  private readonly ingress: Ingress;
  private readonly journal: HarnessEventJournal | undefined;
  private readonly prefix: string | undefined;
  /** The ingress URL safe to print (query values and user info masked). */
  private readonly where: string;
  private readonly decisionTimeoutMs: number;

  constructor(options: RestateAgentClientOptions) {
    this.decisionTimeoutMs = options.decisionTimeoutMs ?? 5000;
    if (!Number.isFinite(this.decisionTimeoutMs) || this.decisionTimeoutMs <= 0) {
      throw new TinyAgentsError(
        "validation",
        `decisionTimeoutMs must be a positive number of milliseconds, got ${String(options.decisionTimeoutMs)}`,
        { details: { field: "decisionTimeoutMs" } },
      );
    }
    this.ingress = connect({
      url: options.ingressUrl,
      ...(options.headers === undefined ? {} : { headers: options.headers }),
    });
    this.journal = options.journal;
    this.prefix = options.servicePrefix;
    this.where = displayUrl(options.ingressUrl);
    // Header values (a Restate Cloud API key) and URL query values are masked wherever they surface.
    registerSecrets(secretsFromConfig({ headers: options.headers, baseUrl: options.ingressUrl }));
  }

  /** `JSON.stringify(client)`: the ingress URL without credentials; never the headers. */
  toJSON(): { type: "RestateAgentClient"; ingressUrl: string } {
    return { type: "RestateAgentClient", ingressUrl: this.where };
  }

  /** `util.inspect(client)`: the same credential-free view as `toJSON`. */
  [Symbol.for("nodejs.util.inspect.custom")](): object {
    return this.toJSON();
  }

  /**
   * Start run `runId` of `agent` (idempotent by run id). Resolves once Restate accepted it.
   * Starting a run id again with the same request answers `PreviouslyAccepted`; with another
   * request it throws `conflict` (a run id names one run) — also when the run has not written its
   * status yet (the check waits for it, at most `decisionTimeoutMs`, else `unavailable`). An
   * unknown agent is `not_found`.
   */
  start(agent: string, runId: string, input: Input, options: StartOptions = {}): Promise<StartedRun> {
    return request(`start ${agent}/${runId}`, async () => {
      const body: RestateRunRequest = { ...options, input };
      // The start time travels with the invocation: the run's clock starts there, no step needed.
      const submission = await this.workflow(agent, runId).workflowSubmit(
        body,
        SendOpts.from({ headers: { [STARTED_AT_HEADER]: String(Date.now()) } }),
      );
      if (submission.status === "PreviouslyAccepted") await this.checkSameRequest(agent, runId, body);
      return { runId, invocationId: submission.invocationId, status: submission.status };
    });
  }

  /** Start run `runId` (idempotently) and wait for its outcome. */
  async run(
    agent: string,
    runId: string,
    input: Input,
    options: StartOptions = {},
  ): Promise<RestateRunOutcome> {
    await this.start(agent, runId, input, options);
    return this.result(agent, runId);
  }

  /**
   * Queue run `runId` of `agent` on thread `threadId`: it starts once every run queued on the
   * thread before it has finished (Restate keeps the thread's queue, in arrival order). Resolves
   * as soon as Restate accepted the submission; `result()` of the answer waits for the outcome.
   * Idempotent by run id: queuing the same run id again does not queue it twice.
   */
  async enqueue(
    threadId: string,
    agent: string,
    runId: string,
    input: Input,
    options: Omit<StartOptions, "threadId"> = {},
  ): Promise<QueuedRun> {
    const send = await request(`enqueue ${agent}/${runId} on thread ${threadId}`, () =>
      this.ingress
        .objectSendClient<ThreadApi>({ name: threadObjectName(this.prefix) }, threadId)
        .submit({ ...options, agent, runId, input }, SendOpts.from({ idempotencyKey: runId })),
    );
    return {
      runId,
      invocationId: send.invocationId,
      status: send.status,
      result: () => request(`result of ${agent}/${runId}`, () => this.ingress.result(send)),
    };
  }

  /** {@link enqueue} the run on its thread and wait for its outcome. */
  async submit(
    threadId: string,
    agent: string,
    runId: string,
    input: Input,
    options: Omit<StartOptions, "threadId"> = {},
  ): Promise<RestateRunOutcome> {
    return (await this.enqueue(threadId, agent, runId, input, options)).result();
  }

  /** Wait for run `runId` to finish and return its outcome (attaches; safe to repeat). */
  result(agent: string, runId: string): Promise<RestateRunOutcome> {
    return request(`result of ${agent}/${runId}`, () => this.workflow(agent, runId).workflowAttach());
  }

  /** The outcome of run `runId` if it has finished, else `undefined` (does not wait). */
  output(agent: string, runId: string): Promise<RestateRunOutcome | undefined> {
    return request(`output of ${agent}/${runId}`, async () => {
      const output = await this.workflow(agent, runId).workflowOutput();
      return output.ready ? output.result : undefined;
    });
  }

  /**
   * Approve the tool call `approvalId` (`<runId>/<callId>`) that run `runId` waits on. Refused,
   * changing nothing: `not_found` when the run has not started or has no such approval (a
   * decision is never kept for a later run), `conflict` when `argumentsHash` names other
   * arguments, the run finished undecided, or another decision was taken; `unavailable` when
   * no worker took it within the decision timeout; `validation` without `argumentsHash` (also
   * refused by the workers, whoever sends it). Repeating a decision taken answers the same.
   */
  approve(agent: string, runId: string, approvalId: string, options: ApproveOptions): Promise<void> {
    if (typeof options?.argumentsHash !== "string") {
      return Promise.reject(missingArgumentsHash(approvalId));
    }
    return this.decide(`approve ${approvalId}`, options, (body, opts) =>
      this.workflow(agent, runId).approve(body, opts),
    )({ approvalId });
  }

  /** Reject the tool call `approvalId`; the model reads `reason`. Checked as {@link approve}. */
  reject(
    agent: string,
    runId: string,
    approvalId: string,
    reason: string,
    options: DecisionOptions = {},
  ): Promise<void> {
    return this.decide(`reject ${approvalId}`, options, (body, opts) =>
      this.workflow(agent, runId).reject(body, opts),
    )({ approvalId, reason });
  }

  /** Send a steering command; the run applies it at its next checkpoint. */
  steer(agent: string, runId: string, command: SteeringCommand): Promise<SteerReceipt> {
    return request(`steer ${agent}/${runId}`, () =>
      Promise.resolve(this.workflow(agent, runId).steer({ command })),
    );
  }

  /** Resolve durable promise `name` of run `runId` with `value` (exactly once). */
  signal(agent: string, runId: string, name: string, value?: JsonValue): Promise<void> {
    return request(`signal ${name}`, () =>
      Promise.resolve(this.workflow(agent, runId).signal(value === undefined ? { name } : { name, value })),
    );
  }

  /**
   * Continue run `runId`, paused and waiting for resume (status phase `paused`: a steering
   * `pause` or a middleware interrupt), in the same workflow: sends its resume signal (the
   * status's `resumeSignal`) through the shared `signal` handler. `value` may carry `messages`
   * to add and `metadata` (see `ResumeSignal`); checked here (`validation`). Throws `conflict`
   * when the run is not waiting for resume (not paused yet, or finished).
   */
  async resume(agent: string, runId: string, value: ResumeSignal = {}): Promise<void> {
    const signal = validateResumeSignal(value);
    const status = await this.status(agent, runId);
    if (status?.phase !== "paused" || status.resumeSignal === undefined) {
      throw new TinyAgentsError(
        "conflict",
        `run ${agent}/${runId} is not waiting for resume (phase: ${status?.phase ?? "not started"}); resume a run whose status phase is "paused"`,
        { details: { runId, phase: status?.phase ?? null } },
      );
    }
    await this.signal(agent, runId, status.resumeSignal, signal as unknown as JsonValue);
  }

  /** The run's status (phase, what it waits for, stop reason), or `undefined` before it started. */
  status(agent: string, runId: string): Promise<RestateRunStatus | undefined> {
    return request(
      `status of ${agent}/${runId}`,
      async () => (await this.workflow(agent, runId).status()) ?? undefined,
    );
  }

  /**
   * Wait until run `runId` reaches a status: a phase (`"waiting"`), any of several phases, or a
   * predicate on the status. Resolves with that status. A run submitted but not picked up by a worker yet is waited for.
   * Typed failures instead of waiting forever: `timeout` after `timeoutMs` (default 30 s),
   * `conflict` as soon as the run finished without reaching it, `not_found` for a run id never
   * started or an agent the deployment does not serve. Restate keeps a run's status in its workflow state, which has no
   * change feed: this reads it through the `status` handler, 10 ms apart at first, backing off to
   * `maxPollMs`.
   */
  waitForStatus(
    agent: string,
    runId: string,
    condition: StatusCondition,
    options: WaitForStatusOptions = {},
  ): Promise<RestateRunStatus> {
    const what = `wait for the status of ${agent}/${runId}`;
    return Promise.resolve().then(() =>
      pollStatus(what, condition, options, async () => {
        const status = await this.status(agent, runId);
        // No status yet: a run that was never started is `not_found` (attach answers 404),
        // not a wait until the timeout.
        if (status === undefined) await this.output(agent, runId);
        return status;
      }),
    );
  }

  /**
   * The run's live events, in order, from the journal the workers write (`options.journal`): new
   * ones as they arrive, until the run has finished and everything it journaled was delivered.
   * Throws `validation` when the client has no journal.
   */
  events(agent: string, runId: string, options: EventStreamOptions = {}): AsyncIterable<EventRecord> {
    const journal = this.journal;
    if (journal === undefined) {
      throw new TinyAgentsError(
        "validation",
        "events() needs the event journal the workers write: new RestateAgentClient({ journal })",
        {
          details: { field: "journal" },
        },
      );
    }
    return tailJournal(journal, runId, async () => (await this.output(agent, runId)) !== undefined, options);
  }

  private workflow(agent: string, runId: string) {
    return this.ingress.workflowClient<AgentWorkflowApi>(
      { name: agentWorkflowName(agent, this.prefix) },
      runId,
    );
  }

  /** One approval decision, bounded in time (see `decisionTimeoutMs`). */
  private decide(
    what: string,
    options: DecisionOptions,
    call: (body: ApprovalDecision, opts: Opts<ApprovalDecision, void>) => PromiseLike<void>,
  ): (body: ApprovalDecision) => Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.decisionTimeoutMs;
    return (body) =>
      request(what, () => {
        const decision: ApprovalDecision = { ...body, expiresAt: Date.now() + timeoutMs };
        if (options.argumentsHash !== undefined) decision.argumentsHash = options.argumentsHash;
        return Promise.resolve(call(decision, Opts.from({ timeout: timeoutMs })));
      });
  }

  /**
   * After `PreviouslyAccepted`: `conflict` unless the run id was started with the same request.
   * The request hash is written by the run's first execution; until then (no worker took the run
   * yet, or it is just starting) this waits for it, at most `decisionTimeoutMs`, and then throws
   * `unavailable` — never answering OK for a request it could not compare.
   */
  private async checkSameRequest(agent: string, runId: string, body: RestateRunRequest): Promise<void> {
    const deadline = Date.now() + this.decisionTimeoutMs;
    let earlier: string | undefined;
    for (;;) {
      const left = deadline - Date.now();
      const status =
        left <= 0
          ? undefined
          : await Promise.resolve(this.workflow(agent, runId).status(Opts.from({ timeout: left }))).catch(
              (error: unknown) => {
                if (Date.now() < deadline) throw error;
                return undefined; // timed out waiting for a worker
              },
            );
      earlier = status?.requestHash;
      if (earlier !== undefined) break;
      if (Date.now() >= deadline) {
        throw new TinyAgentsError(
          "unavailable",
          `run "${runId}" of agent "${agent}" was already accepted, but no worker has started it yet, so its request cannot be compared with this one; nothing new was started: retry once a worker is up`,
          { details: { runId, agent } },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, REQUEST_HASH_POLL_MS));
    }
    if (earlier === requestHash(body)) return;
    throw new TinyAgentsError(
      "conflict",
      `run "${runId}" of agent "${agent}" was already started with another request; a run id names one run: start a new run id`,
      { details: { runId, agent } },
    );
  }
}

/** Run one ingress request, turning Restate's HTTP failures into typed errors. */
async function request<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) throw error;
    if (!(error instanceof HttpCallError)) {
      const timedOut =
        error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      const unreachable = error instanceof TypeError; // fetch failed: the ingress did not answer
      const code: ErrorCode = timedOut || unreachable ? "unavailable" : "internal";
      const why = timedOut
        ? "no Restate worker answered in time; nothing was changed: retry when a worker is up"
        : error instanceof Error
          ? error.message
          : String(error);
      throw new TinyAgentsError(code, `${what}: ${why}`, { cause: error, details: { request: what } });
    }
    const failure = failureOf(error);
    throw new TinyAgentsError(failure.code, `${what}: ${failure.message}`, {
      cause: error,
      details: { request: what, status: error.status },
    });
  }
}

/** The code and message of a failed ingress call: the handler's own when it tagged them, else by status. */
function failureOf(error: HttpCallError): { code: ErrorCode; message: string } {
  let message = error.responseText;
  try {
    const body = JSON.parse(error.responseText) as { message?: unknown };
    if (typeof body?.message === "string") message = body.message;
  } catch {
    // Not JSON: Restate's text as is.
  }
  const tagged = taggedFailure(message);
  if (tagged !== undefined) return tagged;
  const code = codeForStatus(error.status);
  const text = message === "" ? error.message : message;
  return { code, message: `Restate answered ${error.status}: ${text}` };
}

function codeForStatus(status: number): ErrorCode {
  if (status === 400) return "validation";
  if (status === 403) return "steering";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 429) return "limit_exceeded";
  if (status >= 502 && status <= 504) return "unavailable";
  return "internal";
}

/** An approval that does not name the arguments it approves (see {@link ApproveOptions}). */
function missingArgumentsHash(approvalId: string): TinyAgentsError {
  return new TinyAgentsError(
    "validation",
    `approve needs the argumentsHash of the call it approves (from its approval.requested event or the status's pendingApprovals), so it cannot approve changed arguments; nothing was decided on "${approvalId}"`,
    { details: { field: "argumentsHash", approvalId } },
  );
}
