import type { HarnessRunStatus } from "../status/run-status.js";
import type { AgentObservation } from "./agent-observation.js";
import { afterThisTurn } from "./next-turn.js";
import { ProjectionSet } from "./projection-set.js";
import type { ObservationSink } from "./sink.js";
import type { HarnessStatusStore } from "./status-store.js";

/**
 * Keeps the standard projections live and, when given a status store, saves each run's status
 * when it changes. Group commit: changes are collected during the current event-loop turn and
 * written at its end, at most one save per run per batch (the latest record), all of a batch in
 * one `saveMany` when the store has it (SQLite: one transaction); changes arriving while a batch
 * is written become the next batch. `flush()` resolves once every change so far is saved.
 * Save failures go to `onError`.
 */
export class ProjectionSink implements ObservationSink {
  readonly projections: ProjectionSet;
  private readonly statusStore: HarnessStatusStore | undefined;
  private readonly onError: (error: unknown) => void;
  /** Runs changed since the last batch, by run id: the live projection record (copied at save). */
  private readonly dirty = new Map<string, HarnessRunStatus>();
  private writing: Promise<void> | undefined;

  constructor(
    options: {
      statusStore?: HarnessStatusStore;
      projections?: ProjectionSet;
      onError?: (error: unknown) => void;
    } = {},
  ) {
    this.projections = options.projections ?? new ProjectionSet();
    this.statusStore = options.statusStore;
    this.onError = options.onError ?? (() => {});
  }

  write(observation: AgentObservation): void {
    const changed = this.projections.apply(observation);
    if (changed === undefined || this.statusStore === undefined) return;
    this.dirty.set(changed.runId, changed);
    this.writing ??= afterThisTurn().then(() => this.drain());
  }

  /** Whether no status save is waiting or being written (a flush has nothing to wait for). */
  get idle(): boolean {
    return this.writing === undefined;
  }

  flush(): Promise<void> {
    return this.writing === undefined ? Promise.resolve() : this.flushWrites();
  }

  private async flushWrites(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  close(): Promise<void> {
    return this.flush();
  }

  private async drain(): Promise<void> {
    const store = this.statusStore as HarnessStatusStore;
    try {
      while (this.dirty.size > 0) {
        // The projection keeps mutating its records: the batch saves a copy made now, unless the
        // store reads the records before `saveMany` returns (no copy needed).
        const batch =
          store.snapshotsOnSave === true
            ? Array.from(this.dirty.values())
            : Array.from(this.dirty.values(), (status) => structuredClone(status));
        this.dirty.clear();
        if (store.saveMany !== undefined) {
          await store.saveMany(batch).catch(this.onError);
        } else {
          for (const status of batch) await store.save(status).catch(this.onError);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }
}
