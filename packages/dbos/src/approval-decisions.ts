import { createHash } from "node:crypto";
import { type ApprovalSignal, approvalSignalName } from "@tinyagents/harness/durability";
import { TinyAgentsError } from "@tinyagents/inference";
import type { OpenedApproval } from "./dbos-durable-context.js";
import type { DbosClientHandle } from "./dbos-sdk.js";
import { APPROVALS_EVENT } from "./names.js";

/** Options of `DbosAgentsClient.reject`. */
export interface DbosDecisionOptions {
  /**
   * The `argumentsHash` of the call decided on (its `approval.requested` event, or the status's
   * `pendingApprovals`): the decision is refused (`conflict`) if the call waiting under that
   * approval id has other arguments. Required to approve (see {@link DbosApproveOptions}).
   */
  argumentsHash?: string;
}

/**
 * Options of `DbosAgentsClient.approve`: an approval names the call the human reviewed, so it
 * can never approve a call whose tool or arguments changed (a replay that asked again
 * differently): a missing hash is `validation`, a different one `conflict`, nothing decided.
 */
export interface DbosApproveOptions extends DbosDecisionOptions {
  argumentsHash: string;
}

/** DBOS statuses of a workflow that will not run again. */
const FINISHED = new Set(["SUCCESS", "ERROR", "CANCELLED", "MAX_RECOVERY_ATTEMPTS_EXCEEDED"]);

/** The approvals run `runId` opened (its `APPROVALS_EVENT`), by approval id. */
export async function openedApprovals(
  client: DbosClientHandle,
  runId: string,
): Promise<Record<string, OpenedApproval>> {
  const opened = await client.getEvent<Record<string, OpenedApproval>>(runId, APPROVALS_EVENT, {
    timeoutSeconds: 0,
  });
  return opened ?? {};
}

/**
 * Send a human's decision on approval `approvalId` of run `runId`, bound to what it approves:
 * refused with a typed error, sending nothing, unless the run exists and its loop opened that
 * approval (`not_found` otherwise: a decision is never kept for a later run), `argumentsHash`
 * (when given) matches the call's, and the run has not finished undecided (`conflict`). A
 * decision already taken answers again as the first time when it is the same and `conflict`
 * when it differs. Reads and writes only Postgres: no worker needs to be up.
 *
 * Two different decisions sent at the same instant both pass the checks; the run takes the first
 * message and the other is never read (each decision has its own idempotency key).
 */
export async function sendDecision(
  client: DbosClientHandle,
  runId: string,
  approvalId: string,
  signal: ApprovalSignal,
  options: DbosDecisionOptions,
): Promise<void> {
  if (typeof approvalId !== "string" || approvalId === "") {
    throw new TinyAgentsError(
      "validation",
      "approvalId (<runId>/<callId>, from the approval.requested event) is required",
      { details: { field: "approvalId" } },
    );
  }
  if (signal.decision === "approve" && typeof options.argumentsHash !== "string") {
    throw new TinyAgentsError(
      "validation",
      `approve needs the argumentsHash of the call it approves (from its approval.requested event or the status's pendingApprovals), so it cannot approve changed arguments; nothing was decided on "${approvalId}"`,
      { details: { field: "argumentsHash", runId, approvalId } },
    );
  }
  const details = { runId, approvalId };
  const workflow = await client.getWorkflow(runId);
  if (workflow === undefined) {
    throw new TinyAgentsError(
      "not_found",
      `run "${runId}" does not exist, so there is no approval "${approvalId}" to decide (a decision answers a pending approval and is never kept for a later run)`,
      { details },
    );
  }
  const opened = await openedApprovals(client, runId);
  const entry = opened[approvalId];
  if (entry === undefined) {
    const pending = Object.values(opened)
      .filter((a) => a.decision === undefined)
      .map((a) => a.wait.approvalId);
    throw new TinyAgentsError(
      "not_found",
      `run "${runId}" has no approval "${approvalId}" (pending: ${pending.length === 0 ? "none" : pending.join(", ")}); nothing was decided`,
      { details },
    );
  }
  if (options.argumentsHash !== undefined && options.argumentsHash !== entry.wait.argumentsHash) {
    throw new TinyAgentsError(
      "conflict",
      `approval "${approvalId}" is for a call of "${entry.wait.toolName}" with other arguments than the ones decided on (argumentsHash ${entry.wait.argumentsHash}); nothing was decided: review the call again`,
      { details },
    );
  }
  if (entry.decision !== undefined) {
    if (sameDecision(entry.decision, signal)) return;
    throw new TinyAgentsError(
      "conflict",
      `approval "${approvalId}" was already decided (${entry.decision.decision}); a decision is taken once`,
      { details },
    );
  }
  if (FINISHED.has(workflow.status)) {
    throw new TinyAgentsError(
      "conflict",
      `run "${runId}" has finished (${workflow.status}) without a decision on "${approvalId}"; nothing was decided`,
      { details },
    );
  }
  const name = approvalSignalName(approvalId);
  // One key per decision: a retried send is a no-op; another decision is a new message.
  const decision = signal.decision === "approve" ? "approve" : `reject:${sha256(signal.reason)}`;
  const key = `${runId}:${name}:${decision}`;
  await client.send(runId, { v: signal }, name, key);
}

function sameDecision(a: ApprovalSignal, b: ApprovalSignal): boolean {
  if (a.decision !== b.decision) return false;
  return a.decision === "approve" || a.reason === (b as { reason?: string }).reason;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
