import {
  isJsonObject,
  type JsonObject,
  type Message,
  validateMessages,
  validationError,
} from "@tinyagents/inference";

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

/**
 * What continues a journaled run that paused (a steering `pause`, a middleware `interrupt`): the
 * value of its resume signal. The parts of `harness.resume` that map onto a run still in flight:
 * - `messages`: appended to the transcript as if injected by steering (after the results of the
 *   tool calls the run paused in front of, when there are some);
 * - `metadata`: replaces the run's metadata (as a steering `setMetadata`).
 * Approval decisions have their own signals (`approvalSignalName`); edits of the transcript and
 * other run options need `harness.resume` of a `PausedRun` (an in-process pause).
 */
export interface ResumeSignal {
  messages?: Message[];
  metadata?: JsonObject;
}

/**
 * The signal a journaled run waits on after its `pause`-th pause (1, 2, …): `resume:<runId>/<pause>`.
 * Deterministic (a re-driven run waits on the same name); engine clients read the name a run waits
 * on from its status, or build it with this function.
 */
export function resumeSignalName(runId: string, pause: number): string {
  return `${RESUME_PREFIX}${runId}/${pause}`;
}

/** True when `name` is a resume signal's name ({@link resumeSignalName}). */
export function isResumeSignalName(name: string): boolean {
  return name.startsWith(RESUME_PREFIX);
}

const RESUME_PREFIX = "resume:";

/**
 * Check a resume signal's value and return it typed: `null` / `undefined` mean `{}`. Throws
 * `validation` naming the bad field.
 */
export function validateResumeSignal(value: unknown): ResumeSignal {
  if (value === null || value === undefined) return {};
  if (!isJsonObject(value)) {
    throw validationError("a resume signal must be an object { messages?, metadata }", { field: "resume" });
  }
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).filter((k) => k !== "messages" && k !== "metadata");
  if (unknown.length > 0) {
    throw validationError(
      `a resume signal carries only messages and metadata, not ${unknown.join(", ")} (approvals have their own signals)`,
      { field: `resume.${unknown[0]}` },
    );
  }
  if (v.messages !== undefined) validateMessages(v.messages, "resume.messages");
  if (v.metadata !== undefined && !isJsonObject(v.metadata)) {
    throw validationError("resume.metadata must be a JSON object", { field: "resume.metadata" });
  }
  return v as ResumeSignal;
}
