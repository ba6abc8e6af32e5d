import type { AgentObservation, HarnessEventJournal, SteeringCommand } from "@tinyagents/harness";
import { canonicalJson } from "@tinyagents/harness/cache";
import {
  approvalSignalName,
  type DurableValue,
  type ResumeSignal,
  type StatusCondition,
  validateResumeSignal,
  type WaitForStatusOptions,
  waitForRunStatus,
} from "@tinyagents/harness/durability";
import { normalizeInput } from "@tinyagents/harness/internal";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import type { JournalQuery } from "@tinyagents/harness/observability";
import { validateSteeringCommand } from "@tinyagents/harness/steering";
import { TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import {
  type DbosApproveOptions,
  type DbosDecisionOptions,
  openedApprovals,
  sendDecision,
} from "./approval-decisions.js";
import type { SignalEnvelope } from "./dbos-durable-context.js";
import { DBOSClient, type DbosClientHandle, DbosErrors } from "./dbos-sdk.js";
import { RESUME_EVENT, registryWorkflowId, STEER_TOPIC, workflowName } from "./names.js";
import { untagged } from "./run-errors.js";
import type { DbosRunPayload, DbosRunResult } from "./run-payload.js";
import { DEFAULT_QUEUE } from "./thread-queue.js";

/** Options of {@link createDbosClient}: the same database, application, version and queue as the workers. */
export interface DbosClientOptions {
  systemDatabaseUrl: string;
  /** Default `tinyagents` (as `dbosAgents`). */
  appName?: string;
  /** Default `tinyagents` (as `dbosAgents`): runs are enqueued for workers of this version. */
  appVersion?: string;
  /** Default `tinyagents-runs` (as `dbosAgents`). */
  queueName?: string;
  /**
   * How often `result()` polls the workflow's status, in ms (default 100; DBOS's own default is
   * 1000, which would add up to a second to every awaited run).
   */
  resultPollingMs?: number;
  /** The shared event journal the workers write to (`dbosAgents({ journal })`): read by `events()`. */
  journal?: HarnessEventJournal;
}

/** Options of {@link DbosAgentsClient.start}. */
export interface DbosStartOptions {
  /** The run id, also the DBOS workflow id: starting the same run id again starts nothing new. */
  runId: string;
  /** The conversation: its runs execute one at a time, in the order they were started. */
  threadId?: string;
}

/** Where a run is, from DBOS's workflow status. */
export interface DbosRunStatus {
  runId: string;
  agent: string;
  /** DBOS's status: `ENQUEUED`, `PENDING` (running or awaiting recovery), `SUCCESS`, `ERROR`, `CANCELLED`, ... */
  state: string;
  /** The worker executing it (or that last did). */
  executorId?: string;
  threadId?: string;
  /** The run whose workflow started this one (a sub-agent's child run). */
  parentRunId?: string;
  createdAt: number;
  updatedAt?: number;
  /** How many times a worker started it (1 + recoveries). */
  recoveryAttempts?: number;
  /**
   * Set while the run is paused and waiting for resume (a steering `pause`, a middleware
   * interrupt): the resume signal it waits on (`resume:<runId>/<n>`); `resume()` sends it.
   */
  resumeSignal?: string;
  /** The human approvals the run waits on now (what each approves, with its `argumentsHash`). */
  pendingApprovals?: ApprovalWait[];
}

/** A client of DBOS-hosted agents, from any process (no workflows registered there). */
export interface DbosAgentsClient<Names extends string = string> {
  /**
   * Enqueue a run of `agent` (idempotent by run id: the same request again starts nothing new).
   * Throws `validation` for an input the harness cannot read (nothing enqueued), `not_found` for
   * an agent no worker has registered, `conflict` for a run id started before with another
   * agent or request.
   */
  start(agent: Names, input: DbosRunPayload["input"], options: DbosStartOptions): Promise<{ runId: string }>;
  /**
   * Wait for the run's result (a failed run resolves too, with `error`). Throws `not_found` at
   * once for an unknown run id; a run refused before its loop throws the harness's own error.
   */
  result(runId: string): Promise<DbosRunResult>;
  /** The run's status, or `undefined` for an unknown run id. */
  status(runId: string): Promise<DbosRunStatus | undefined>;
  /**
   * Wait until the run's status meets `condition`: a DBOS state (`"PENDING"`), any of several,
   * or a predicate on the status (`(s) => s.pendingApprovals !== undefined`); resolves with that
   * status. Typed failures instead of waiting forever: `not_found` at once for an unknown run id
   * (a started run has a status from its enqueue on), `timeout` after `timeoutMs` (default
   * 30 s), `conflict` as soon as the run ended (`SUCCESS`, `ERROR`) without meeting it. Reads
   * the status 10 ms apart at first, backing off to `maxPollMs` (250 ms).
   */
  waitForStatus(
    runId: string,
    condition: StatusCondition<DbosRunStatus>,
    options?: WaitForStatusOptions,
  ): Promise<DbosRunStatus>;
  /**
   * Approve the tool call waiting for approval `approvalId` (`<runId>/<callId>`). Refused,
   * sending nothing: `not_found` when the run does not exist or has not opened that approval,
   * `conflict` when `argumentsHash` names other arguments, the run finished undecided, or another
   * decision was taken; `validation` without `argumentsHash`. A repeat of the decision taken
   * answers the same. Needs no worker up.
   */
  approve(runId: string, approvalId: string, options: DbosApproveOptions): Promise<void>;
  /** Reject it with a reason the model reads; checked as `approve`. */
  reject(runId: string, approvalId: string, reason: string, options?: DbosDecisionOptions): Promise<void>;
  /**
   * Send the run a steering command (pause, resume, cancel, injectMessage, redirect,
   * setMetadata): validated here (`validation` for a malformed one), taken by the run before its
   * next model step when its workers were given `steering` allowing that kind. Kept in order.
   */
  steer(runId: string, command: SteeringCommand): Promise<void>;
  /**
   * Continue the run, paused and waiting for resume (`status().resumeSignal`), in the same
   * workflow: sends its resume signal (a DBOS message on that topic). `value` may carry
   * `messages` and `metadata` (see `ResumeSignal`; checked here: `validation`). Throws
   * `conflict` when the run is not waiting for resume.
   */
  resume(runId: string, value?: ResumeSignal): Promise<void>;
  /** Complete the run's durable wait on signal `name` with `value` (exactly once per `idempotencyKey`). */
  signal(runId: string, name: string, value: DurableValue, idempotencyKey?: string): Promise<void>;
  /**
   * The run's events from the shared journal (the run tree's, sub-agents included), in offset
   * order. Throws `validation` when the client was created without `journal`.
   */
  events(runId: string, query?: JournalQuery): Promise<AgentObservation[]>;
  /** Cancel the run (DBOS stops it at its next step). */
  cancel(runId: string): Promise<void>;
  close(): Promise<void>;
}

/** Connect a client to the workers' system database. */
export async function createDbosClient<Names extends string = string>(
  options: DbosClientOptions,
): Promise<DbosAgentsClient<Names>> {
  const appName = options.appName ?? "tinyagents";
  const client: DbosClientHandle = await DBOSClient.create({
    systemDatabaseUrl: options.systemDatabaseUrl,
    applicationName: appName,
  });
  const queueName = options.queueName ?? DEFAULT_QUEUE;
  const appVersion = options.appVersion ?? "tinyagents";
  const pollingIntervalMs = options.resultPollingMs ?? 100;
  /** Agents known to be served by some worker (see `registryWorkflowId`). */
  const served = new Set<string>();
  const send = (runId: string, name: string, value: DurableValue, key: string | undefined) => {
    const envelope: SignalEnvelope = { v: value ?? null };
    return client.send(runId, envelope, name, key);
  };
  /** The resume signal run `runId` waits on now, if it is paused (the workflow's RESUME_EVENT). */
  const waitingForResume = async (runId: string): Promise<string | undefined> => {
    const name = await client.getEvent<string>(runId, RESUME_EVENT, { timeoutSeconds: 0 });
    return typeof name === "string" && name !== "" ? name : undefined;
  };
  const api: DbosAgentsClient<Names> = {
    async start(agent, input, start) {
      normalizeInput(input); // `validation` before anything is enqueued
      if (!served.has(agent)) {
        if ((await client.getWorkflow(registryWorkflowId(agent))) === undefined) {
          throw new TinyAgentsError(
            "not_found",
            `unknown agent "${agent}": no worker has registered it (dbosAgents({ agents: { ${agent}: … } }) on a launched worker of app "${appName}")`,
            { details: { agent } },
          );
        }
        served.add(agent);
      }
      const payload: DbosRunPayload = { input };
      if (start.threadId !== undefined) payload.threadId = start.threadId;
      const reused = new TinyAgentsError(
        "conflict",
        `run "${start.runId}" was already started with another agent or request; a run id names one run: start a new run id`,
        { details: { runId: start.runId, agent } },
      );
      try {
        await client.enqueue(
          {
            workflowName: workflowName(agent),
            queueName,
            workflowID: start.runId,
            appVersion,
            queuePartitionKey: start.threadId ?? start.runId,
          },
          payload,
        );
      } catch (error) {
        if (error instanceof DbosErrors.DBOSConflictingWorkflowError) throw reused; // another agent
        throw error;
      }
      // DBOS answers an existing workflow id with that workflow: the same run, or another one.
      const existing = await client.getWorkflow(start.runId);
      const same =
        existing === undefined ||
        (existing.workflowName === workflowName(agent) &&
          canonicalJson(existing.input?.[0] ?? null) === canonicalJson(payload));
      if (!same) throw reused;
      return { runId: start.runId };
    },
    async result(runId) {
      if ((await client.getWorkflow(runId)) === undefined) {
        throw new TinyAgentsError("not_found", `run "${runId}" does not exist (start it first)`, {
          details: { runId },
        });
      }
      let value: DbosRunResult | null | undefined;
      try {
        value = await client.retrieveWorkflow<DbosRunResult>(runId).getResult({ pollingIntervalMs });
      } catch (error) {
        // The workflow itself failed (not the agent: that is a result with `error`), or was cancelled.
        const cause = toTinyAgentsError(error);
        const cancelled = error instanceof DbosErrors.DBOSAwaitedWorkflowCancelledError;
        const refused = untagged(cause.message);
        if (refused !== undefined) {
          throw new TinyAgentsError(refused.code, `run "${runId}" was refused: ${refused.message}`, {
            cause: error,
            details: { runId },
          });
        }
        throw new TinyAgentsError(
          cancelled ? "cancelled" : cause.code,
          `run "${runId}" did not finish: ${cause.message}`,
          {
            cause: error,
            details: { runId },
          },
        );
      }
      if (value === null || value === undefined) {
        throw new TinyAgentsError("internal", `run "${runId}" finished without a result`, {
          details: { runId },
        });
      }
      return value;
    },
    async status(runId) {
      const s = await client.getWorkflow(runId);
      if (s === undefined) return undefined;
      const status: DbosRunStatus = {
        runId,
        agent: s.workflowName.replace(/^tinyagents\./, ""),
        state: s.status,
        createdAt: s.createdAt,
      };
      if (s.executorId !== undefined) status.executorId = s.executorId;
      const payload = s.input?.[0] as DbosRunPayload | undefined;
      if (payload?.threadId !== undefined) status.threadId = payload.threadId;
      if (s.updatedAt !== undefined) status.updatedAt = s.updatedAt;
      if (s.parentWorkflowID !== undefined) status.parentRunId = s.parentWorkflowID;
      const attempts = (s as { recoveryAttempts?: number }).recoveryAttempts;
      if (attempts !== undefined) status.recoveryAttempts = attempts;
      const resumeSignal = await waitingForResume(runId);
      if (resumeSignal !== undefined) status.resumeSignal = resumeSignal;
      const pending = Object.values(await openedApprovals(client, runId))
        .filter((a) => a.decision === undefined)
        .map((a) => a.wait);
      if (pending.length > 0) status.pendingApprovals = pending;
      return status;
    },
    async waitForStatus(runId, condition, options = {}) {
      return waitForRunStatus(`wait for the status of run "${runId}"`, condition, options, {
        read: async () => {
          const status = await api.status(runId);
          if (status !== undefined) return status;
          throw new TinyAgentsError("not_found", `no run "${runId}" was started; nothing to wait for`, {
            details: { runId },
          });
        },
        state: (status) => status.state,
        finished: (status) => status.state === "SUCCESS" || status.state === "ERROR",
      });
    },
    async resume(runId, value = {}) {
      const signal = validateResumeSignal(value);
      const name = await waitingForResume(runId);
      if (name === undefined) {
        throw new TinyAgentsError(
          "conflict",
          `run "${runId}" is not waiting for resume; resume a run whose status has a resumeSignal`,
          { details: { runId } },
        );
      }
      await send(runId, name, signal as unknown as DurableValue, `${runId}:${name}`);
    },
    approve(runId, approvalId, decision) {
      // A JavaScript caller may leave the options out: refused below as a missing hash.
      return sendDecision(client, runId, approvalId, { decision: "approve" }, decision ?? {});
    },
    reject(runId, approvalId, reason, decision = {}) {
      if (typeof reason !== "string" || reason === "") {
        return Promise.reject(
          new TinyAgentsError("validation", "reject needs a non-empty reason (the model reads it)", {
            details: { field: "reason" },
          }),
        );
      }
      return sendDecision(client, runId, approvalId, { decision: "reject", reason }, decision);
    },
    async steer(runId, command) {
      await send(runId, STEER_TOPIC, validateSteeringCommand(command) as unknown as DurableValue, undefined);
    },
    signal(runId, name, value, idempotencyKey) {
      if (name.startsWith(approvalSignalName(""))) {
        // Approvals are checked against what the run waits on: they never bypass approve/reject.
        return Promise.reject(
          new TinyAgentsError("validation", `"${name}" is an approval: decide it with approve or reject`, {
            details: { field: "name" },
          }),
        );
      }
      return send(runId, name, value, idempotencyKey);
    },
    events(runId, query) {
      const journal = options.journal;
      if (journal === undefined) {
        return Promise.reject(
          new TinyAgentsError(
            "validation",
            "events() needs the shared event journal: createDbosClient({ journal }) with the one the workers write to",
          ),
        );
      }
      return journal.read(runId, query);
    },
    cancel(runId) {
      return client.cancelWorkflow(runId);
    },
    close() {
      return client.destroy();
    },
  };
  return api;
}
