import type { JsonValue } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { DurableRunRecord } from "./run-record.js";

/**
 * The small lease key of a run (`<namespace>.leases`, one key per run id): what a heartbeat
 * writes — a few dozen bytes instead of the whole record (input, checkpoint, intents). It counts
 * only while its epoch is the record's: a take bumps the record's epoch first, so a lease key
 * left by an earlier owner is ignored, and that owner's next renewal finds the newer epoch and
 * stops the run.
 */
export interface LeaseValue {
  ownerId: string;
  epoch: number;
  /** The owner's lease: the run counts as alive until then (epoch ms, the owner's clock). */
  leaseUntil: number;
}

/** The namespace of the lease keys of runs recorded in `namespace`. */
export function leasesNamespaceOf(namespace: string): string {
  return `${namespace}.leases`;
}

/** Whether `value` is a {@link LeaseValue}. */
export function isLeaseValue(value: unknown): value is LeaseValue {
  const v = value as Partial<LeaseValue> | null | undefined;
  return (
    typeof v === "object" &&
    v !== null &&
    typeof v.ownerId === "string" &&
    typeof v.epoch === "number" &&
    typeof v.leaseUntil === "number"
  );
}

/**
 * `record` with the lease it really holds: the later of the record's own `leaseUntil` (set by the
 * take and every boundary) and its lease key's, when that key belongs to the record's epoch.
 */
export function withLease(record: DurableRunRecord, lease: unknown): DurableRunRecord {
  if (!isLeaseValue(lease) || lease.epoch !== record.epoch || lease.ownerId !== record.ownerId) return record;
  return lease.leaseUntil > record.leaseUntil ? { ...record, leaseUntil: lease.leaseUntil } : record;
}

type CasStore = KeyValueStore & Required<Pick<KeyValueStore, "compareAndSet">>;

/** Compare-and-set attempts of a lease key write before it gives up (it only loses to newer epochs). */
const ATTEMPTS = 20;

/**
 * After a take at `lease.epoch`: make the run's lease key this epoch's (`undefined`: delete it,
 * for a run the take ended), unless a newer epoch already wrote it. Resolves to the value left.
 */
export async function claimLeaseKey(
  store: CasStore,
  namespace: string,
  runId: string,
  epoch: number,
  lease: LeaseValue | undefined,
): Promise<LeaseValue | undefined> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const current = await store.get(namespace, runId);
    if (isLeaseValue(current) && current.epoch > epoch) return current;
    if (current === undefined && lease === undefined) return undefined;
    if (await store.compareAndSet(namespace, runId, current, lease as unknown as JsonValue | undefined)) {
      return lease;
    }
  }
  return undefined;
}
