import { isJsonObject, type JsonObject, type ToolCall, validationError } from "@tinyagents/inference";

/** Where an approval stands. */
export type ApprovalStatus = "pending" | "approved" | "rejected";

/** One tool call waiting for (or decided by) a human. Plain JSON data: store it anywhere. */
export interface ApprovalRecord {
  /** `{runId}/{callId}`. */
  id: string;
  runId: string;
  callId: string;
  toolName: string;
  arguments: JsonObject;
  /** Epoch ms (run clock) when approval was requested. */
  requestedAt: number;
  status: ApprovalStatus;
  /** Why it was rejected (shown to the model). */
  reason?: string;
  /** The decision was applied to the call (it ran, or was answered as rejected): it is spent. */
  used: boolean;
}

/**
 * The approvals of `humanApprovalMiddleware`: pending requests and decisions, by id. Serializable:
 * persist `toJSON()` beside the run's `paused` record and rebuild with `new ApprovalBook(records)`
 * in the process that resumes the run.
 */
export class ApprovalBook {
  private readonly records = new Map<string, ApprovalRecord>();

  /** A book holding `records` (for example loaded from a store); each is checked. */
  constructor(records: readonly ApprovalRecord[] = []) {
    for (const record of records) {
      checkRecord(record);
      this.records.set(record.id, structuredClone(record));
    }
  }

  /** The record with `id`, if any (a copy). */
  get(id: string): ApprovalRecord | undefined {
    const record = this.records.get(id);
    return record === undefined ? undefined : structuredClone(record);
  }

  /** Every record still waiting for a decision (copies), oldest first. */
  pending(): ApprovalRecord[] {
    return [...this.records.values()].filter((r) => r.status === "pending").map((r) => structuredClone(r));
  }

  /** Approve a pending request: the call runs when the run is resumed. */
  approve(id: string): void {
    this.decide(id, "approved");
  }

  /** Reject a pending request: the call is answered with an error carrying `reason`. */
  reject(id: string, reason: string): void {
    if (typeof reason !== "string") throw validationError("ApprovalBook.reject: `reason` must be a string");
    this.decide(id, "rejected", reason);
  }

  /** Every record (copies): the book's serializable form. */
  toJSON(): ApprovalRecord[] {
    return [...this.records.values()].map((r) => structuredClone(r));
  }

  /**
   * @internal The unspent record for a tool call of a run: by id, else (the loop may re-key a
   * duplicate call id after `afterModel`) by tool name and arguments.
   */
  find(runId: string, call: ToolCall): ApprovalRecord | undefined {
    const byId = this.records.get(approvalId(runId, call.id));
    if (byId !== undefined) return byId.used ? undefined : byId;
    const args = JSON.stringify(call.arguments);
    for (const record of this.records.values()) {
      if (
        !record.used &&
        record.runId === runId &&
        record.toolName === call.name &&
        JSON.stringify(record.arguments) === args
      ) {
        return record;
      }
    }
    return undefined;
  }

  /** @internal Mark a decided record as applied to its call (an approval is good for one call). */
  spend(record: ApprovalRecord): void {
    record.used = true;
  }

  /** @internal Open a pending request for `call` (or return the existing record). */
  open(runId: string, call: ToolCall, now: number): ApprovalRecord {
    const existing = this.find(runId, call);
    if (existing !== undefined) return existing;
    // A spent record may already hold this id (a repeated call id): keep it, number the new one.
    const base = approvalId(runId, call.id);
    let id = base;
    for (let n = 2; this.records.has(id); n++) id = `${base}#${n}`;
    const record: ApprovalRecord = {
      id,
      runId,
      callId: call.id,
      toolName: call.name,
      arguments: structuredClone(call.arguments),
      requestedAt: now,
      status: "pending",
      used: false,
    };
    this.records.set(record.id, record);
    return record;
  }

  private decide(id: string, status: "approved" | "rejected", reason?: string): void {
    const record = this.records.get(id);
    if (record === undefined) {
      const pending = this.pending().map((r) => r.id);
      throw validationError(
        `no approval request with id "${id}"; pending: ${pending.join(", ") || "(none)"}`,
        { field: "id", id },
      );
    }
    if (record.status !== "pending") {
      throw validationError(`approval "${id}" was already ${record.status}; decisions are final`, {
        field: "id",
        id,
      });
    }
    record.status = status;
    if (reason !== undefined) record.reason = reason;
  }
}

/** The approval id of a tool call of a run (`#2`, `#3`... is appended when a call id repeats). */
export function approvalId(runId: string, callId: string): string {
  return `${runId}/${callId}`;
}

function checkRecord(record: ApprovalRecord): void {
  const ok =
    isJsonObject(record) &&
    typeof record.id === "string" &&
    typeof record.runId === "string" &&
    typeof record.callId === "string" &&
    typeof record.toolName === "string" &&
    isJsonObject(record.arguments) &&
    typeof record.requestedAt === "number" &&
    (record.status === "pending" || record.status === "approved" || record.status === "rejected") &&
    typeof record.used === "boolean";
  if (!ok) {
    throw validationError(
      "ApprovalBook: a record is malformed; pass records from ApprovalBook.toJSON() ({ id, runId, callId, toolName, arguments, requestedAt, status, used })",
      { field: "records" },
    );
  }
}
