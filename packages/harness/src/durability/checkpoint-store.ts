import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { ToolIntent } from "./checkpoint-contract.js";
import { claimLeaseKey, isLeaseValue, leasesNamespaceOf, withLease } from "./lease-key.js";
import { entrySince, liveNamespaceOf, markLive, ORPHAN_ENTRY_MS, unmarkLive } from "./live-index.js";
import type { PausedRun } from "./paused-run.js";
import { validatePausedRun } from "./paused-run.js";
import type { RunRecordStore } from "./run-hold.js";
import { clone, guardStorage, RunLease } from "./run-lease.js";
import {
  type DurableRunRecord,
  isRunRecord,
  RUN_RECORD_KIND,
  type TakeRequest,
  takeRecord,
} from "./run-record.js";
import { type StartWithStatus, startStatus } from "./start-status.js";

/** The default KeyValueStore namespace of durable run records (checkpoints, leases, intents). */
export const CHECKPOINTS_NAMESPACE = "checkpoints";
/**
 * The namespace `"once"` tools' intents used before they moved into the run record (kept for
 * the constructor's signature; nothing is written there any more).
 */
export const TOOL_INTENTS_NAMESPACE = "tool_intents";

/** Compare-and-set attempts of a take before it gives up. */
const TAKE_ATTEMPTS = 20;

/**
 * The durable records of runs (opt-in, `durability.checkpoints`) in any {@link KeyValueStore}
 * with `compareAndSet` (memory, file, SQLite, Postgres), one key per run id: owner, fencing
 * epoch and lease, state, the last checkpoint (a `PausedRun`, reason `"checkpoint"`, whose
 * `eventOffset` is the journal offset it covers) or the paused record, and the intents of its
 * `"once"` tool calls (see {@link DurableRunRecord}).
 *
 * A process works on a run only through the {@link RunLease} that {@link take} gave it: a take is
 * one compare-and-set that bumps the epoch, and every later write is conditional on that epoch,
 * so of several processes taking one run exactly one proceeds and a process that lost the run
 * cannot write anything of it any more.
 *
 * Next to the records: a small lease key per run (`<namespace>.leases`: what a heartbeat
 * writes, a few dozen bytes) and an index of live runs (`<namespace>.live`: what a supervisor
 * pass reads, so it costs O(live runs) however many finished runs the store keeps). A finished
 * run keeps only its small record (state, owner, epoch, outcome, `"once"` intents).
 */
export class CheckpointStore implements RunRecordStore {
  readonly store: KeyValueStore;
  readonly namespace: string;
  readonly intentsNamespace: string;
  /** Where the runs' lease keys live (`<namespace>.leases`). */
  readonly leasesNamespace: string;
  /** Where the index of live (running or paused) runs lives (`<namespace>.live`). */
  readonly liveNamespace: string;
  /** Set by a store that writes a new run's record and first status in one transaction. */
  private readonly startWithStatus: StartWithStatus | undefined;

  /**
   * @param options.startWithStatus a new run's record and its first (`running`) status record
   *   written in one transaction (`SqliteStore.checkpoints`, `PostgresStore.checkpoints` pass it):
   *   without it the status record is the observability pipeline's alone, written after the take.
   */
  constructor(
    store: KeyValueStore,
    namespace = CHECKPOINTS_NAMESPACE,
    intentsNamespace = TOOL_INTENTS_NAMESPACE,
    options: { startWithStatus?: StartWithStatus } = {},
  ) {
    this.store = store;
    this.startWithStatus = options.startWithStatus;
    this.namespace = namespace;
    this.intentsNamespace = intentsNamespace;
    this.leasesNamespace = leasesNamespaceOf(namespace);
    this.liveNamespace = liveNamespaceOf(namespace);
  }

  /**
   * Take run `request.runId` (start, recover, resume or reap it) in one compare-and-set that
   * bumps its epoch; resolves to the lease every later write of the run goes through. Rejects
   * with `conflict` naming the run when the take is refused (see `takeRecord`): it never waits
   * and never steals a live lease.
   */
  async take(request: TakeRequest): Promise<RunLease> {
    const store = this.casStore();
    if (request.continueChild === true && request.parentRunId !== undefined) {
      // The owner of a running parent owns its children: it may continue one whose lease is live.
      const parent = await this.record(request.parentRunId);
      request = {
        ...request,
        parentOwned: parent?.state === "running" && parent.ownerId === request.ownerId,
      };
    }
    const { runId } = request;
    // A new run is indexed as live before it can be live (a crash right after leaves an orphan
    // entry, dropped later). A recover or resume finds its run indexed since its start; it
    // re-indexes it after the take (records older than the index), a refused take writes nothing.
    const creates = request.mode === "start" || (request.mode === "resume" && request.paused !== undefined);
    if (creates) {
      await guardStorage(runId, "indexing", () => markLive(store, this.liveNamespace, runId, request.now));
    }
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      const raw = await guardStorage(runId, "reading", () => store.get(this.namespace, runId));
      const current = isRunRecord(raw) ? raw : undefined;
      if (raw !== undefined && current === undefined) throw foreignValue(runId, this.namespace);
      const leaseKey =
        current === undefined
          ? undefined
          : await guardStorage(runId, "reading", () => store.get(this.leasesNamespace, runId));
      const next = clone(
        takeRecord(current === undefined ? undefined : withLease(current, leaseKey), request),
      );
      const startWithStatus =
        raw === undefined && request.mode === "start" ? this.startWithStatus : undefined;
      const written = await guardStorage(runId, "taking", () =>
        startWithStatus === undefined
          ? store.compareAndSet(this.namespace, runId, raw, next as unknown as JsonValue)
          : startWithStatus(this.namespace, runId, undefined, next, startStatus(next, request.now)),
      );
      if (!written) continue;
      // The lease key follows the new epoch (a reap ends the run: its key and index entry go).
      const ended = next.state === "failed" || next.state === "completed";
      const held = await guardStorage(runId, "taking", () =>
        claimLeaseKey(
          store,
          this.leasesNamespace,
          runId,
          next.epoch,
          ended ? undefined : { ownerId: next.ownerId, epoch: next.epoch, leaseUntil: next.leaseUntil },
        ),
      );
      if (ended) await guardStorage(runId, "indexing", () => unmarkLive(store, this.liveNamespace, runId));
      else if (!creates) {
        await guardStorage(runId, "indexing", () => markLive(store, this.liveNamespace, runId, request.now));
      }
      const target = {
        store,
        namespace: this.namespace,
        leases: this.leasesNamespace,
        live: this.liveNamespace,
      };
      return new RunLease(
        target,
        next,
        request.leaseMs,
        isLeaseValue(held) && held.epoch === next.epoch ? held : undefined,
      );
    }
    throw new TinyAgentsError(
      "conflict",
      `run "${request.runId}": ${TAKE_ATTEMPTS} takes in a row lost to concurrent writers of its record`,
      { details: { runId: request.runId, mode: request.mode } },
    );
  }

  /** The durable record of `runId` (its `leaseUntil` the latest renewal's), or `undefined`. */
  async record(runId: string): Promise<DurableRunRecord | undefined> {
    const raw = await guardStorage(runId, "reading", () => this.store.get(this.namespace, runId));
    if (!isRunRecord(raw)) return undefined;
    if (raw.state !== "running") return raw;
    const lease = await guardStorage(runId, "reading", () => this.store.get(this.leasesNamespace, runId));
    return withLease(raw, lease);
  }

  /** Every durable record of the store (runs of every state, finished ones too), by run id. */
  async records(): Promise<DurableRunRecord[]> {
    const out: DurableRunRecord[] = [];
    for (const runId of await this.store.list(this.namespace)) {
      const record = await this.record(runId);
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  /**
   * The records of the live runs (running, also dead ones, or paused), by run id, from the live
   * index: its cost follows the live runs, not every run the store ever kept. Repairs the index
   * on the way: an entry of a finished run is dropped, an entry without a record once it is older
   * than a minute by `now` (a take that crashed before writing its record).
   */
  async liveRecords(now: number = Date.now()): Promise<DurableRunRecord[]> {
    const out: DurableRunRecord[] = [];
    for (const runId of await guardStorage("*", "listing", () => this.store.list(this.liveNamespace))) {
      const record = await this.record(runId);
      if (record !== undefined && (record.state === "running" || record.state === "paused")) {
        out.push(record);
        continue;
      }
      if (record === undefined) {
        const entry = await guardStorage(runId, "reading", () => this.store.get(this.liveNamespace, runId));
        if (now - entrySince(entry) < ORPHAN_ENTRY_MS) continue;
      }
      await guardStorage(runId, "indexing", () => unmarkLive(this.store, this.liveNamespace, runId));
    }
    return out;
  }

  /** The checkpoint (or paused record) of `runId` (validated), or `undefined`. */
  async load(runId: string): Promise<PausedRun | undefined> {
    const record = await this.record(runId);
    return record?.checkpoint === undefined ? undefined : validatePausedRun(record.checkpoint);
  }

  /** Run ids that have a checkpoint to continue from (running runs, or runs whose process died, and paused runs). */
  async list(): Promise<string[]> {
    return (await this.records())
      .filter((r) => r.checkpoint !== undefined && (r.state === "running" || r.state === "paused"))
      .map((r) => r.runId);
  }

  /**
   * Write `checkpoint` as the run's checkpoint outside any lease (imports, tests, repairs): the
   * run becomes `running` with no live owner (recoverable at once), at a new epoch, so whoever
   * owned it before is fenced out.
   */
  async save(checkpoint: PausedRun): Promise<void> {
    const value = clone(validatePausedRun(checkpoint));
    await guardStorage(checkpoint.runId, "indexing", () =>
      markLive(this.store, this.liveNamespace, checkpoint.runId, Date.now()),
    );
    await this.update(checkpoint.runId, (current) => ({
      ...(current ?? blankRecord(checkpoint.runId)),
      ownerId: "",
      epoch: (current?.epoch ?? 0) + 1,
      leaseUntil: 0,
      state: "running",
      checkpoint: value,
    }));
  }

  /**
   * Forget run `runId` entirely (its record, checkpoint and intents): for a run whose result the
   * host has and that must never be recovered. A lease still held on it fails its next write.
   */
  async delete(runId: string): Promise<void> {
    await guardStorage(runId, "deleting", () => this.store.delete(this.namespace, runId));
    await guardStorage(runId, "deleting", async () => {
      await this.store.delete(this.leasesNamespace, runId);
      await unmarkLive(this.store, this.liveNamespace, runId);
    });
  }

  /** The recorded intent of tool call `callId` of `runId`, if any (kept after the run ends). */
  async intent(runId: string, callId: string): Promise<ToolIntent | undefined> {
    return (await this.record(runId))?.intents[callId];
  }

  /** Record (or complete) an intent outside any lease (tests, the in-process durable context without a run). */
  async recordIntent(intent: ToolIntent): Promise<void> {
    const value = clone(intent);
    await this.update(intent.runId, (current) => {
      const next = current ?? blankRecord(intent.runId);
      next.intents = { ...next.intents, [intent.callId]: value };
      return next;
    });
  }

  private async update(
    runId: string,
    change: (current: DurableRunRecord | undefined) => DurableRunRecord,
  ): Promise<void> {
    const store = this.casStore();
    for (let attempt = 0; attempt < TAKE_ATTEMPTS; attempt++) {
      const raw = await guardStorage(runId, "reading", () => store.get(this.namespace, runId));
      const current = isRunRecord(raw) ? clone(raw) : undefined;
      if (raw !== undefined && current === undefined) throw foreignValue(runId, this.namespace);
      const next = clone(change(current));
      if (
        await guardStorage(runId, "writing", () =>
          store.compareAndSet(this.namespace, runId, raw, next as unknown as JsonValue),
        )
      )
        return;
    }
    throw new TinyAgentsError(
      "conflict",
      `run "${runId}": its record kept changing under ${TAKE_ATTEMPTS} writes`,
      {
        details: { runId },
      },
    );
  }

  private casStore(): KeyValueStore & Required<Pick<KeyValueStore, "compareAndSet">> {
    if (typeof this.store.compareAndSet !== "function") {
      throw new TinyAgentsError(
        "capability",
        "CheckpointStore needs a KeyValueStore with compareAndSet (every built-in store has it: memory, file, SQLite, Postgres)",
        { details: { namespace: this.namespace } },
      );
    }
    return this.store as KeyValueStore & Required<Pick<KeyValueStore, "compareAndSet">>;
  }
}

function blankRecord(runId: string): DurableRunRecord {
  return {
    kind: RUN_RECORD_KIND,
    runId,
    rootRunId: runId,
    ownerId: "",
    epoch: 0,
    leaseUntil: 0,
    state: "running",
    intents: {},
    updatedAt: 0,
  };
}

function foreignValue(runId: string, namespace: string): TinyAgentsError {
  return new TinyAgentsError(
    "storage",
    `the value of run "${runId}" in namespace "${namespace}" is not a durable run record (written by an older version or something else); delete it or use another namespace`,
    { details: { runId, namespace } },
  );
}
