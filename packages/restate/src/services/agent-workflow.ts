import {
  TerminalError,
  type WorkflowContext,
  type WorkflowSharedContext,
  workflow,
} from "@restatedev/restate-sdk";
import {
  AgentRunError,
  approvalSignalName,
  attachObservability,
  isResumeSignalName,
  type RunResult,
  SteeringHandle,
  SteeringPolicy,
} from "@tinyagents/harness";
import { type ErrorSummary, type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import { RestateDurableContext } from "../context/restate-durable-context.js";
import { isLive, ReplayAwareEventSink } from "../events/replay-aware-sink.js";
import type { AgentFactory, RestateAgentsOptions } from "./agents-options.js";
import { agentWorkflowName } from "./naming.js";
import type {
  ApprovalDecision,
  RestateRunOutcome,
  RestateRunRequest,
  RestateRunStatus,
  SignalRequest,
  SteerReceipt,
  SteerRequest,
} from "./run-protocol.js";
import { checkRunRequest } from "./run-request.js";
import { postSteering, SteeringInbox } from "./steering-inbox.js";

const STATUS = "status";

/**
 * The Restate workflow of agent `name`, keyed by run id (one workflow instance per run, so a run
 * id is started at most once). Handlers:
 *
 * - `run` executes the harness's ONE run loop with `durable: RestateDurableContext` (model calls,
 *   tool calls, child runs journaled as steps; approvals as durable promises) and returns a
 *   {@link RestateRunOutcome}. Live events go to `options.events` (replays are not re-delivered).
 * - `approve` / `reject` resolve the approval promise the run waits on (`approval:<approvalId>`);
 * - `steer` posts a steering command (checked against `options.steering`);
 * - `signal` resolves any durable promise of the run — also the resume signal a paused run
 *   waits on (`resume:<runId>/<n>`; status phase `paused`);
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
        const request = checkRunRequest(body);
        try {
          harness ??= factory();
        } catch (error) {
          throw asTerminal(error); // a broken agent definition does not heal by retrying
        }
        const runId = ctx.key;
        const identity = {
          agent: name,
          runId,
          ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
        };
        const steering = new SteeringHandle(policy);
        const inbox = new SteeringInbox(ctx, steering);
        let status: RestateRunStatus | undefined;
        const save = (patch: Partial<RestateRunStatus>) => {
          if (status === undefined) return;
          status = { ...status, ...patch, updatedAt: durable.now() };
          if (status.phase !== "paused") delete status.resumeSignal;
          ctx.set(STATUS, status);
        };
        const events = new ReplayAwareEventSink(runId, () => isLive(ctx));
        const durable = await RestateDurableContext.open(ctx, {
          eventOffsets: events,
          workflowName,
          remoteAgents,
          beforeModelStep: () => inbox.pull(),
          onWaiting: (signals) => save(waitingStatus(signals)),
          ...(options.maxStepBytes === undefined ? {} : { maxStepBytes: options.maxStepBytes }),
          ...(options.artifacts === undefined ? {} : { artifacts: options.artifacts }),
          ...(options.stepRetry === undefined ? {} : { stepRetry: options.stepRetry }),
        });
        const startedAt = durable.now();
        status = { ...identity, phase: "running", waitingFor: [], startedAt, updatedAt: startedAt };
        ctx.set(STATUS, status);

        const observability = options.events?.(identity);
        const attached = observability === undefined ? undefined : attachObservability(events, observability);
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
          if (!AgentRunError.isAgentRunError(thrown)) throw asTerminal(thrown);
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

      approve: async (ctx: WorkflowSharedContext, body: ApprovalDecision): Promise<void> => {
        await ctx.promise(approvalSignalName(requireId(body))).resolve({ decision: "approve" });
      },

      reject: async (ctx: WorkflowSharedContext, body: ApprovalDecision): Promise<void> => {
        const reason = body?.reason;
        if (typeof reason !== "string" || reason === "") {
          throw new TerminalError("reject needs a non-empty `reason` (the model reads it)", {
            errorCode: 400,
          });
        }
        await ctx.promise(approvalSignalName(requireId(body))).resolve({ decision: "reject", reason });
      },

      steer: async (ctx: WorkflowSharedContext, body: SteerRequest): Promise<SteerReceipt> => ({
        sequence: await postSteering(ctx, body?.command, policy),
      }),

      signal: async (ctx: WorkflowSharedContext, body: SignalRequest): Promise<void> => {
        if (typeof body?.name !== "string" || body.name === "") {
          throw new TerminalError("signal needs a non-empty `name`", { errorCode: 400 });
        }
        await ctx.promise<JsonValue>(body.name).resolve(body.value ?? null);
      },

      status: async (ctx: WorkflowSharedContext): Promise<RestateRunStatus | null> =>
        (await ctx.get<RestateRunStatus>(STATUS)) ?? null,
    },
  });
}

/** The status patch of a run waiting on `signals` (a resume signal: `paused`, waiting for resume). */
function waitingStatus(signals: readonly string[]): Partial<RestateRunStatus> {
  const resume = signals.find(isResumeSignalName);
  if (resume !== undefined) return { phase: "paused", waitingFor: [...signals], resumeSignal: resume };
  return { phase: signals.length > 0 ? "waiting" : "running", waitingFor: [...signals] };
}

function requireId(body: ApprovalDecision): string {
  if (typeof body?.approvalId !== "string" || body.approvalId === "") {
    throw new TerminalError(
      "`approvalId` (<runId>/<callId>, from the approval.requested event) is required",
      {
        errorCode: 400,
      },
    );
  }
  return body.approvalId;
}

/** A failure before or outside the loop (bad options, an unknown model): terminal, with its message. */
function asTerminal(error: unknown): Error {
  if (error instanceof TerminalError) return error;
  const code = TinyAgentsError.isInstance(error) ? error.code : "internal";
  const message = error instanceof Error ? error.message : String(error);
  return new TerminalError(`[${code}] ${message}`, { errorCode: code === "validation" ? 400 : 500 });
}
