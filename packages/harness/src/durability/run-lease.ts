import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { ToolIntent } from "./checkpoint-contract.js";
import { claimLeaseKey, isLeaseValue, type LeaseValue } from "./lease-key.js";
import { unmarkLive } from "./live-index.js";
import type { PausedRun } from "./paused-run.js";
import type { RunHold } from "./run-hold.js";
import { type DurableRunRecord, fencedOut, isRunRecord } from "./run-record.js";

/** Where a lease's record lives: the store and the namespaces of records, lease keys and the live index. */
interface LeaseTarget {
  store: KeyValueStore & Required<Pick<KeyValueStore, "compareAndSet">>;
  namespace: string;
  /** Lease keys (`lease-key.ts`): what a heartbeat writes. */
  leases: string;
  /** The live index (`live-index.ts`): the run leaves it when it ends. */
  live: string;
}

/** Compare-and-set attempts before a write gives up (each failure re-reads the record). */
const CAS_ATTEMPTS = 20;

/**
 * The hold of one process on one run, from a take (`CheckpointStore.take`): every write of the
 * run's durable record goes through it — checkpoint, pause, `"once"` intents and results, lease
 * renewal, the end of the run — each one a compare-and-set that succeeds only while the record
 * still carries this owner and epoch. Once another process took the run (a later epoch), every
 * write fails with `conflict` (`fencedOut`) and `lost` says so: the run stops.
 */
export class RunLease implements RunHold {
  readonly runId: string;
  readonly ownerId: string;
  readonly epoch: number;
  readonly leaseMs: number;
  /** The record as it was taken (what recovery continues from). */
  readonly taken: DurableRunRecord;
  /** Set once a fenced write failed: the run belongs to someone else now. */
  lost: TinyAgentsError | undefined;
  private readonly target: LeaseTarget;
  /** The record as this lease last wrote it (the compare value of the next write). */
  private last: DurableRunRecord;
  /** The run's lease key as this lease last wrote or read it (the compare value of a renewal). */
  private lastLease: LeaseValue | undefined;
  /** Writes of one lease run one at a time (parallel tool calls record intents concurrently). */
  private tail: Promise<unknown> = Promise.resolve();

  /** @internal Built by `CheckpointStore.take`. */
  constructor(target: LeaseTarget, record: DurableRunRecord, leaseMs: number, leaseKey?: LeaseValue) {
    this.target = target;
    this.lastLease = leaseKey;
    this.runId = record.runId;
    this.ownerId = record.ownerId;
    this.epoch = record.epoch;
    this.leaseMs = leaseMs;
    this.taken = clone(record);
    this.last = clone(record);
  }

  /** Save the checkpoint of a safe boundary (`final`: it holds the final model response). */
  saveCheckpoint(checkpoint: PausedRun, now: number, final = false): Promise<void> {
    return this.write((r) => {
      r.checkpoint = checkpoint;
      if (final) r.final = true;
      else delete r.final;
      r.leaseUntil = now + this.leaseMs;
      r.updatedAt = now;
    });
  }

  /** The run is completing: its `run.completed` event gets journal offset `offset`. */
  completing(offset: number, now: number): Promise<void> {
    return this.write((r) => {
      r.completingAt = offset;
      r.updatedAt = now;
    });
  }

  /** The run paused: its paused record replaces the checkpoint in the same write (no gap). */
  pause(paused: PausedRun, now: number): Promise<void> {
    return this.write((r) => {
      r.state = "paused";
      r.checkpoint = paused;
      delete r.final;
      r.updatedAt = now;
    });
  }

  /**
   * The run ended: its outcome recorded and its checkpoint dropped in one write (a completed
   * child run keeps its final one). The intents of its `"once"` calls stay (a late owner of the
   * run must still find them).
   */
  finish(state: "completed" | "failed", outcome: DurableRunRecord["outcome"], now: number): Promise<void> {
    return this.write((r) => {
      r.state = state;
      delete r.start; // the input is in the transcript; a finished run never restarts from it
      delete r.completingAt;
      // A child run keeps its final checkpoint: a recovered parent that calls it again gets its
      // answer back without a model call. A root run's checkpoint is dropped.
      if (r.parentRunId === undefined || state === "failed") {
        delete r.checkpoint;
        delete r.final;
      }
      if (outcome !== undefined) r.outcome = outcome;
      r.updatedAt = now;
    }).then(() => this.forget());
  }

  /**
   * Renew the lease until `now + leaseMs` (the heartbeat): a compare-and-set of the run's small
   * lease key only (owner, epoch, lease: a few dozen bytes), never of the whole record. Fenced
   * like every write: a renewal that finds a newer epoch fails with `conflict`.
   */
  renew(now: number): Promise<void> {
    return this.enqueue(() => this.writeLeaseKey(now + this.leaseMs));
  }

  /** Give the run up without ending it: the lease lapses now, so it is recoverable at once. */
  async release(now: number): Promise<void> {
    await this.write((r) => {
      r.leaseUntil = now;
    });
    await this.enqueue(() => this.writeLeaseKey(now));
  }

  /** The recorded intent of `"once"` call `callId` (read from the store: a recovered run's too). */
  async intent(_runId: string, callId: string): Promise<ToolIntent | undefined> {
    const current = await this.read();
    if (current === undefined || current.epoch !== this.epoch) throw this.fenced(current);
    return current.intents[callId] ?? this.last.intents[callId] ?? undefined;
  }

  /** Record (or complete, with `result`) the intent of a `"once"` call, fenced like every write. */
  recordIntent(intent: ToolIntent): Promise<void> {
    const value = JSON.parse(JSON.stringify(intent)) as ToolIntent;
    return this.write((r) => {
      r.intents[intent.callId] = value;
    });
  }

  /** One fenced write: `change` applied to the current record, compare-and-set on this epoch. */
  private write(change: (record: DurableRunRecord) => void): Promise<void> {
    return this.enqueue(() => this.writeNow(change));
  }

  /** Run `work` after every write queued before it. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const run = this.tail.then(work);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** The fenced lease key write: succeeds only while no newer epoch took the run. */
  private async writeLeaseKey(leaseUntil: number): Promise<void> {
    if (this.lost !== undefined) throw this.lost;
    const { store, leases } = this.target;
    const next: LeaseValue = { ownerId: this.ownerId, epoch: this.epoch, leaseUntil };
    let expected: unknown = this.lastLease;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (
        isLeaseValue(expected) &&
        (expected.epoch > this.epoch || (expected.epoch === this.epoch && expected.ownerId !== this.ownerId))
      ) {
        throw this.fenced(await this.read());
      }
      if (expected === undefined || !isLeaseValue(expected) || expected.epoch < this.epoch) {
        // No key of this epoch yet (or one left by an earlier owner): the record says whether
        // this epoch still holds the run (a reap deletes the key).
        const current = await this.read();
        if (current === undefined || current.epoch !== this.epoch || current.ownerId !== this.ownerId) {
          throw this.fenced(current);
        }
        // A late heartbeat of a run that already ended leaves no lease key behind.
        if (current.state === "completed" || current.state === "failed") return;
      }
      const written = await guardStorage(this.runId, "renewing the lease of", () =>
        store.compareAndSet(leases, this.runId, expected as JsonValue | undefined, { ...next }),
      );
      if (written) {
        this.lastLease = next;
        return;
      }
      expected = await guardStorage(this.runId, "reading", () => store.get(leases, this.runId));
    }
    throw new TinyAgentsError(
      "conflict",
      `run "${this.runId}": ${CAS_ATTEMPTS} renewals of its lease in a row lost to concurrent writers; is another process renewing it under the same owner id?`,
      { details: { runId: this.runId, ownerId: this.ownerId, epoch: this.epoch } },
    );
  }

  /**
   * After the run ended: drop its lease key and its live index entry (retention: a finished run
   * keeps only its small record). Best effort: a leftover is harmless (a lease key counts only for
   * a running record; a supervisor pass drops an index entry of a finished run).
   */
  private async forget(): Promise<void> {
    const { store, leases, live } = this.target;
    try {
      await claimLeaseKey(store, leases, this.runId, this.epoch, undefined);
      await unmarkLive(store, live, this.runId);
    } catch {
      // The record says the run ended; the leftovers are cleaned up by the next supervisor pass.
    }
  }

  private async writeNow(change: (record: DurableRunRecord) => void): Promise<void> {
    if (this.lost !== undefined) throw this.lost;
    let expected: DurableRunRecord | undefined = this.last;
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      if (expected === undefined || expected.epoch !== this.epoch || expected.ownerId !== this.ownerId) {
        throw this.fenced(expected);
      }
      const next = clone(expected);
      change(next);
      if (await this.cas(expected, next)) {
        this.last = next;
        return;
      }
      expected = await this.read();
    }
    throw new TinyAgentsError(
      "conflict",
      `run "${this.runId}": ${CAS_ATTEMPTS} writes of its record in a row lost to concurrent writers; is another process writing it under the same owner id?`,
      { details: { runId: this.runId, ownerId: this.ownerId, epoch: this.epoch } },
    );
  }

  private fenced(current: DurableRunRecord | undefined): TinyAgentsError {
    this.lost ??= fencedOut(this.runId, this, current);
    return this.lost;
  }

  private async read(): Promise<DurableRunRecord | undefined> {
    const value = await guardStorage(this.runId, "reading", () =>
      this.target.store.get(this.target.namespace, this.runId),
    );
    return isRunRecord(value) ? value : undefined;
  }

  private cas(expected: DurableRunRecord, next: DurableRunRecord): Promise<boolean> {
    return guardStorage(this.runId, "writing", () =>
      this.target.store.compareAndSet(
        this.target.namespace,
        this.runId,
        expected as unknown as JsonValue,
        next as unknown as JsonValue,
      ),
    );
  }
}

/** A deep copy through JSON (what the store keeps: `undefined` keys dropped). */
export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Run a store call; a failure that is not a TinyAgentsError becomes `storage` naming the run. */
export async function guardStorage<T>(runId: string, doing: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (TinyAgentsError.isInstance(error)) throw error;
    throw new TinyAgentsError(
      "storage",
      `${doing} the durable record of run "${runId}" failed: ${String(error)}`,
      {
        cause: error,
        details: { runId },
      },
    );
  }
}
