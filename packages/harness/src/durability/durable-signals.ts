/**
 * What a human (or a rule) answers to an approval wait: approve the tool call, or reject it with
 * a reason the model reads. Sent with `signal(approvalSignalName(...), value)` to a run that waits
 * on a journaling engine (Restate, DBOS, the testkit's replay double).
 */
export type ApprovalSignal = { decision: "approve" } | { decision: "reject"; reason: string };

/**
 * The signal name a run waits on for the approval `approvalId` (`<runId>/<callId>`, as in
 * `ApprovalRecord.id` and the `approval.requested` event): `approval:<approvalId>`. Engine clients
 * build the name with this function so the loop and the client always agree.
 */
export function approvalSignalName(approvalId: string): string {
  return `approval:${approvalId}`;
}

/** True when `value` is a well-formed {@link ApprovalSignal}. */
export function isApprovalSignal(value: unknown): value is ApprovalSignal {
  if (typeof value !== "object" || value === null) return false;
  const v = value as { decision?: unknown; reason?: unknown };
  return v.decision === "approve" || (v.decision === "reject" && typeof v.reason === "string");
}
