import { type WorkflowContext, type WorkflowSharedContext, workflow } from "@restatedev/restate-sdk";
import {
  AgentRunError,
  attachObservability,
  type ObservabilityOptions,
  type RunResult,
  SteeringHandle,
  SteeringPolicy,
} from "@tinyagents/harness";
import { approvalSignalName, callOfStep, isResumeSignalName } from "@tinyagents/harness/durability";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import { ReplayReconcilingJournal } from "@tinyagents/harness/observability";
import { type ErrorSummary, type JsonValue, TinyAgentsError, toTinyAgentsError } from "@tinyagents/inference";
import { RestateDurableContext } from "../context/restate-durable-context.js";
import { isLive, ReplayAwareEventSink } from "../events/replay-aware-sink.js";
import { agentWorkflowName } from "../naming/naming.js";
import type { AgentFactory, RestateAgentsOptions } from "./agents-options.js";
import { APPROVALS, decideApproval, STATUS } from "./approval-decisions.js";
import { asTerminal, handlerError, taggedFailure } from "./handler-errors.js";
import type {
  ApprovalDecision,
  RestateRunOutcome,
  RestateRunRequest,
  RestateRunStatus,
  SignalRequest,
  SteerReceipt,
  SteerRequest,
} from "./run-protocol.js";
import { checkRunRequest, requestHash } from "./run-request.js";
import { postSteering, SteeringInbox } from "./steering-inbox.js";

/**
 * The Restate workflow of agent `name`, keyed by run id (one workflow instance per run, so a run
 * id is started at most once). Handlers:
 *
 * - `run` executes the harness's ONE run loop with `durable: RestateDurableContext` (model calls,
 *   tool calls, child runs journaled as steps; approvals as durable promises) and returns a
 *   {@link RestateRunOutcome}. Live events go to `options.events` (replays are not re-delivered).
 * - `approve` / `reject` resolve the approval promise the run waits on (`approval:<approvalId>`),
 *   only when the run opened that approval (see `decideApproval`);
 * - `steer` posts a steering command (checked against `options.steering`);
 * - `signal` resolves a durable promise of the run — also the resume signal a paused run
 *   waits on (`resume:<runId>/<n>`; status phase `paused`) — but never an approval's;
 * - `status` reads the run's {@link RestateRunStatus}.
 */
export function agentWorkflow(name: string, factory: AgentFactory, options: RestateAgentsOptions) {
  const prefix = options.servicePrefix;
  const workflowName = (agent: string) => agentWorkflowName(agent, prefix);
  const policy = options.steering ?? new SteeringPolicy();
  const remoteAgents: ReadonlySet<string> = new Set(Object.keys(options.agents));
  let harness: ReturnType<AgentFactory> | undefined;

  return workflow({
    name: workflowName(name),
    handlers: {
      run: async (ctx: WorkflowContext, body: RestateRunRequest): Promise<RestateRunOutcome> => {
        const runId = ctx.key;
        const hash = requestHash(body);
        let request: RestateRunRequest;
        try {
          request = checkRunRequest(body);
          harness ??= factory();
        } catch (error) {
          // Refused before the loop (a malformed request, a broken agent definition): terminal,
          // and the status says failed, so no one waits on a run that will never start.
          await refuse(ctx, { agent: name, runId }, hash, error);
          throw asTerminal(error);
        }
        const identity = {
          agent: name,
          runId,
          ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
        };
        const steering = new SteeringHandle(policy);
        // With a policy that allows no command the `steer` handler refuses everything: no model
        // step pays a round trip to the server (a promise peek) to look for one.
        const inbox = policy.kinds().length === 0 ? undefined : new SteeringInbox(ctx, steering);
        let status: RestateRunStatus | undefined;
        const save = (patch: Partial<RestateRunStatus>) => {
          if (status === undefined) return;
          status = { ...status, ...patch, updatedAt: durable.now() };
          if (status.phase !== "paused") delete status.resumeSignal;
          ctx.set(STATUS, status);
        };
        const events = new ReplayAwareEventSink(runId, () => isLive(ctx));
        const opened: Record<string, ApprovalWait> = {};
        const durable = await RestateDurableContext.open(ctx, {
          eventOffsets: events,
          workflowName,
          remoteAgents,
          beforeModelStep: async () => {
            // What the run emitted so far is journaled before the step is: a re-execution does
            // not deliver the events of replayed steps again, so events still queued when a
            // worker died after a later step was journaled (run.started, the previous turn's
            // completions) would be lost. Also the back-pressure: the queue is empty after it.
            await attached?.flush();
            await inbox?.pull();
          },
          onApprovalOpened: (wait) => recordApprovals(ctx, opened, [wait]),
          // A call Restate has no entry for runs here: its attempt is journaled even when the dead
          // worker journaled the end of one whose step Restate never stored (the run goes on
          // with this one: an at-least-once tool ran twice, a once call answers "outcome unknown").
          onLiveStep: (name, { kind }) => {
            const call = callOfStep(name, kind);
            if (call !== undefined) attached?.liveCall(call.kind, call.callId);
          },
          // Restate may suspend the invocation at a wait: what this execution emitted is journaled
          // first, so the next execution reconciles against all of it.
          beforeWait: () => attached?.flush(),
          onWaiting: (signals, approvals) => {
            recordApprovals(ctx, opened, approvals);
            save(waitingStatus(signals, approvals));
          },
          ...(options.maxStepBytes === undefined ? {} : { maxStepBytes: options.maxStepBytes }),
          ...(options.artifacts === undefined ? {} : { artifacts: options.artifacts }),
          ...(options.stepRetry === undefined ? {} : { stepRetry: options.stepRetry }),
        });
        const startedAt = durable.now();
        status = {
          ...identity,
          phase: "running",
          waitingFor: [],
          requestHash: hash,
          startedAt,
          updatedAt: startedAt,
        };
        ctx.set(STATUS, status);

        const attached = await observe(events, runId, options.events?.(identity));
        let result: RunResult;
        let error: ErrorSummary | undefined;
        try {
          const stream = harness.stream(request.input, {
            runId,
            durable,
            events,
            steering,
            ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
            ...(request.model === undefined ? {} : { model: request.model }),
            ...(request.tags === undefined ? {} : { tags: request.tags }),
            ...(request.metadata === undefined ? {} : { metadata: request.metadata }),
          });
          // Drain the items (deltas already reached the sink's listeners), keep the result.
          for await (const _ of stream) {
          }
          result = await stream.result;
        } catch (thrown) {
          if (!AgentRunError.isAgentRunError(thrown)) {
            // The harness refused the run before its loop (an input it cannot read, an unknown
            // model): the run failed with the harness's own error, and its status says so.
            save({ phase: "failed", waitingFor: [], finishedAt: durable.now(), error: summary(thrown) });
            throw asTerminal(thrown);
          }
          result = thrown.run;
          error = new TinyAgentsError(
            thrown.code,
            thrown.message,
            thrown.details === undefined ? {} : { details: thrown.details },
          ).toJSON();
        } finally {
          await attached?.close();
        }
        const finishedAt = durable.now();
        const state = error === undefined ? "completed" : "failed";
        save({
          phase: state,
          waitingFor: [],
          finishedAt,
          stopReason: result.stopReason,
          ...(error === undefined ? {} : { error }),
        });
        return {
          ...identity,
          state,
          startedAt,
          finishedAt,
          result: JSON.parse(JSON.stringify(result)) as RunResult & JsonValue,
          ...(error === undefined ? {} : { error }),
        };
      },

      approve: async (ctx: WorkflowSharedContext, body: ApprovalDecision): Promise<void> =>
        decideApproval(ctx, name, checkDecision(body), { decision: "approve" }),

      reject: async (ctx: WorkflowSharedContext, body: ApprovalDecision): Promise<void> => {
        const decision = checkDecision(body);
        const reason = decision.reason;
        if (typeof reason !== "string" || reason === "") {
          throw handlerError("validation", "reject needs a non-empty `reason` (the model reads it)");
        }
        await decideApproval(ctx, name, decision, { decision: "reject", reason });
      },

      steer: async (ctx: WorkflowSharedContext, body: SteerRequest): Promise<SteerReceipt> => ({
        sequence: await postSteering(ctx, body?.command, policy),
      }),

      signal: async (ctx: WorkflowSharedContext, body: SignalRequest): Promise<void> => {
        if (typeof body?.name !== "string" || body.name === "") {
          throw handlerError("validation", "signal needs a non-empty `name`");
        }
        if (body.name.startsWith(approvalSignalName(""))) {
          // Approvals are checked against what the run waits on: they never bypass `approve`.
          throw handlerError("validation", `"${body.name}" is an approval: decide it with approve or reject`);
        }
        await ctx.promise<JsonValue>(body.name).resolve(body.value ?? null);
      },

      status: async (ctx: WorkflowSharedContext): Promise<RestateRunStatus | null> =>
        (await ctx.get<RestateRunStatus>(STATUS)) ?? null,
    },
  });
}

/** The status patch of a run waiting on `signals` (a resume signal: `paused`, waiting for resume). */
function waitingStatus(
  signals: readonly string[],
  approvals: readonly ApprovalWait[],
): Partial<RestateRunStatus> {
  const pendingApprovals = [...approvals];
  const resume = signals.find(isResumeSignalName);
  if (resume !== undefined) {
    return { phase: "paused", waitingFor: [...signals], resumeSignal: resume, pendingApprovals };
  }
  return { phase: signals.length > 0 ? "waiting" : "running", waitingFor: [...signals], pendingApprovals };
}

/** The run's attached observability (see {@link observe}). */
interface AttachedObservability {
  flush(): Promise<void>;
  close(): Promise<void>;
  /** This execution runs the call itself (`ReplayReconcilingJournal.liveCall`); a no-op without a journal. */
  liveCall(kind: "model" | "tool", callId: string): void;
}

/**
 * Attach the run's observability: its journal writes through a `ReplayReconcilingJournal`, so
 * the stream reads like one uninterrupted run across re-executions (what a killed worker left
 * open is closed by `*.abandoned`, what the re-execution emits again is dropped, a call run
 * again after its end was journaled is written as a further attempt).
 */
async function observe(
  events: ReplayAwareEventSink,
  runId: string,
  observability: ObservabilityOptions | undefined,
): Promise<AttachedObservability | undefined> {
  if (observability === undefined) return undefined;
  const { journal, statusStore, sinks, ...pipeline } = observability;
  if (journal === undefined) {
    const attached = attachObservability(events, observability);
    return { flush: () => attached.flush(), close: () => attached.close(), liveCall: () => {} };
  }
  // Restate delivers new work only, at the first execution's offsets: matched by offset.
  const reconciled = await ReplayReconcilingJournal.open(journal, runId, {
    match: "offset",
    onRenumber: (next) => events.advanceTo(next),
  });
  // A full journal queue keeps every event (the run waits at its next model step, `flush`).
  const journaled = attachObservability(events, {
    ...pipeline,
    journal: reconciled,
    journalOverflow: pipeline.journalOverflow ?? "wait",
  });
  const live = attachObservability(events, {
    ...pipeline,
    ...(statusStore === undefined ? {} : { statusStore }),
    ...(sinks === undefined ? {} : { sinks }),
  });
  return {
    liveCall: (kind, callId) => reconciled.liveCall(kind, callId),
    flush: async () => {
      await journaled.flush();
      await live.flush();
    },
    close: async () => {
      await journaled.close();
      await live.close();
    },
  };
}

/** Keep every approval the run opened in workflow state, for the `approve` / `reject` handlers. */
function recordApprovals(
  ctx: WorkflowContext,
  opened: Record<string, ApprovalWait>,
  approvals: readonly ApprovalWait[],
): void {
  let added = false;
  for (const wait of approvals) {
    if (opened[wait.approvalId] !== undefined) continue;
    opened[wait.approvalId] = wait;
    added = true;
  }
  if (added) ctx.set(APPROVALS, opened);
}

/** Record a run refused before its loop as failed (status read by clients and `approve`). */
async function refuse(
  ctx: WorkflowContext,
  identity: { agent: string; runId: string },
  hash: string,
  error: unknown,
): Promise<void> {
  const now = await RestateDurableContext.startTime(ctx);
  const status: RestateRunStatus = {
    ...identity,
    phase: "failed",
    waitingFor: [],
    requestHash: hash,
    startedAt: now,
    updatedAt: now,
    finishedAt: now,
    error: summary(error),
  };
  ctx.set(STATUS, status);
}

function summary(error: unknown): ErrorSummary {
  const tagged = error instanceof Error ? taggedFailure(error.message) : undefined;
  const e =
    tagged === undefined ? toTinyAgentsError(error) : new TinyAgentsError(tagged.code, tagged.message);
  return new TinyAgentsError(
    e.code,
    e.message,
    e.details === undefined ? {} : { details: e.details },
  ).toJSON();
}

function checkDecision(body: ApprovalDecision): ApprovalDecision {
  if (typeof body?.approvalId !== "string" || body.approvalId === "") {
    throw handlerError(
      "validation",
      "`approvalId` (<runId>/<callId>, from the approval.requested event) is required",
    );
  }
  if (body.argumentsHash !== undefined && typeof body.argumentsHash !== "string") {
    throw handlerError("validation", "`argumentsHash` must be the string from approval.requested");
  }
  if (body.expiresAt !== undefined && typeof body.expiresAt !== "number") {
    throw handlerError("validation", "`expiresAt` must be epoch milliseconds");
  }
  return body;
}
