import type { HarnessRunStatus } from "@tinyagents/harness";
import { isActiveStatus } from "@tinyagents/harness/observability";

/**
 * A `run_status` row's values in the order the statements list the columns: `run_id`,
 * `root_run_id`, `thread_id`, `status`, `active`, `started_at`, `updated_at`, `ended_at`,
 * `lease_until`, `record` (the status as JSON text). Made when a save is called, so the caller
 * may change its record right after (`snapshotsOnSave`).
 */
export type StatusRow = readonly [
  runId: string,
  rootRunId: string,
  threadId: string | null,
  status: string,
  active: boolean,
  startedAt: number,
  updatedAt: number,
  endedAt: number | null,
  leaseUntil: number,
  record: string,
];

/** The row of `status` (`active` as its status implies unless given). */
export function statusRow(status: HarnessRunStatus, active = isActiveStatus(status.status)): StatusRow {
  return [
    status.runId,
    status.rootRunId,
    status.threadId ?? null,
    status.status,
    active,
    status.startedAt,
    status.updatedAt,
    status.endedAt ?? null,
    status.leaseUntil ?? status.updatedAt,
    JSON.stringify(status),
  ];
}

/**
 * The conditional status upsert's SET and WHERE (fencing epoch first, then not older and never a
 * finished run back to active), shared by the one-statement commits, a run's start and the status store.
 */
export function statusUpsertTail(): string {
  return (
    "ON CONFLICT (run_id) DO UPDATE SET " +
    "root_run_id = excluded.root_run_id, thread_id = excluded.thread_id, status = excluded.status, " +
    "active = excluded.active, started_at = excluded.started_at, updated_at = excluded.updated_at, " +
    "ended_at = excluded.ended_at, lease_until = excluded.lease_until, record = excluded.record " +
    // Fencing first: a record of a higher epoch always wins, one of a lower epoch never does.
    "WHERE COALESCE((excluded.record::jsonb->>'epoch')::bigint, 0) > COALESCE((cur.record::jsonb->>'epoch')::bigint, 0) " +
    "OR (COALESCE((excluded.record::jsonb->>'epoch')::bigint, 0) = COALESCE((cur.record::jsonb->>'epoch')::bigint, 0) " +
    "AND excluded.updated_at >= cur.updated_at AND NOT (cur.active = false AND excluded.active = true)) "
  );
}

/** Order rows by run id (as every multi-status write locks them, so two processes never deadlock). */
export function byRunId(a: StatusRow, b: StatusRow): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}
