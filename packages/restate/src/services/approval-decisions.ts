import type { WorkflowSharedContext } from "@restatedev/restate-sdk";
import { type ApprovalSignal, approvalSignalName } from "@tinyagents/harness/durability";
import type { ApprovalWait } from "@tinyagents/harness/middleware";
import { handlerError } from "./handler-errors.js";
import type { ApprovalDecision, RestateRunStatus } from "./run-protocol.js";

/** Workflow state key: every approval wait the run opened, by approval id (never removed). */
export const APPROVALS = "approvals";

/** Workflow state key of the run's {@link RestateRunStatus}. */
export const STATUS = "status";

/**
 * Apply a human's decision to the approval a run waits on, bound to what it approves. Refused
 * with a typed error, changing nothing, unless the decision names an approval the run opened
 * (the run exists and its loop asked for `approvalId`) and `argumentsHash` is the hash of that
 * call's tool name and arguments (required to approve; checked when a rejection gives it). A decision already taken answers again as the
 * first time when it is the same (a client retrying after a lost answer) and `conflict` when
 * it differs. A decision that reaches a worker after the client's deadline (`expiresAt`) is
 * refused (`unavailable`): the client already reported it as not applied.
 *
 * Never stored ahead of the run: a decision for a run that has not started, or for a call it has
 * not asked about yet, is `not_found`, so no later run can find an approval waiting for it.
 */
export async function decideApproval(
  ctx: WorkflowSharedContext,
  agent: string,
  body: ApprovalDecision,
  signal: ApprovalSignal,
): Promise<void> {
  const approvalId = body.approvalId;
  const run = `run "${ctx.key}" of agent "${agent}"`;
  if (typeof body.expiresAt === "number" && (await ctx.date.now()) > body.expiresAt) {
    throw handlerError(
      "unavailable",
      `the decision on "${approvalId}" reached a worker after its deadline; nothing was decided: send it again`,
    );
  }
  if (signal.decision === "approve" && body.argumentsHash === undefined) {
    throw handlerError(
      "validation",
      `approve needs the argumentsHash of the call it approves (from its approval.requested event or the status's pendingApprovals), so it cannot approve changed arguments; nothing was decided on "${approvalId}"`,
    );
  }
  const status = await ctx.get<RestateRunStatus>(STATUS);
  if (status === null || status === undefined) {
    throw handlerError(
      "not_found",
      `${run} has not started, so there is no approval "${approvalId}" to decide (a decision answers a pending approval and is never kept for a later run)`,
    );
  }
  const opened = (await ctx.get<Record<string, ApprovalWait>>(APPROVALS)) ?? {};
  const wait = opened[approvalId];
  if (wait === undefined) {
    const pending = (status.pendingApprovals ?? []).map((a) => a.approvalId);
    throw handlerError(
      "not_found",
      `${run} has no approval "${approvalId}" (pending: ${pending.length === 0 ? "none" : pending.join(", ")}); nothing was decided`,
    );
  }
  if (body.argumentsHash !== undefined && body.argumentsHash !== wait.argumentsHash) {
    throw handlerError(
      "conflict",
      `approval "${approvalId}" is for a call of "${wait.toolName}" with other arguments than the ones decided on (argumentsHash ${wait.argumentsHash}, not ${body.argumentsHash}); nothing was decided: review the call again`,
    );
  }
  const promise = ctx.promise<ApprovalSignal>(approvalSignalName(approvalId));
  const earlier = await promise.peek();
  if (earlier !== undefined && earlier !== null) return sameOrConflict(approvalId, earlier, signal);
  if (status.phase === "completed" || status.phase === "failed") {
    throw handlerError(
      "conflict",
      `${run} has finished (${status.phase}) without a decision on "${approvalId}"; nothing was decided`,
    );
  }
  try {
    await promise.resolve(signal);
  } catch (error) {
    // A concurrent decision won the race: same one, same answer; another one, conflict.
    const winner = await promise.peek();
    if (winner !== undefined && winner !== null) return sameOrConflict(approvalId, winner, signal);
    throw error;
  }
}

function sameOrConflict(approvalId: string, earlier: ApprovalSignal, signal: ApprovalSignal): void {
  const same =
    earlier.decision === signal.decision &&
    (earlier.decision === "approve" || earlier.reason === (signal as { reason?: string }).reason);
  if (same) return;
  throw handlerError(
    "conflict",
    `approval "${approvalId}" was already decided (${earlier.decision}); a decision is taken once`,
  );
}
