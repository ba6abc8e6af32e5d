import { validationError } from "@tinyagents/inference";
import { abandonedStatus, isStale, type ReapOptions, reapCutoff } from "../durability/reap-stale.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import {
  type HarnessStatusStore,
  isActiveStatus,
  type StatusQuery,
  shouldReplaceStatus,
  sortStatuses,
  statusFilter,
  validateStatus,
} from "./status-store.js";

/** Default number of finished runs a status store keeps. */
export const DEFAULT_MAX_FINISHED_RUNS = 10_000;

/** Options of an {@link InMemoryHarnessStatusStore}. */
export interface InMemoryStatusStoreOptions {
  /** Finished runs kept before the oldest finished one is evicted (default 10,000). */
  maxFinishedRuns?: number;
  /** Told about each evicted run id (the store-backed status store deletes it from the backend). */
  onEvict?: (runId: string) => void;
}

/**
 * An in-memory HarnessStatusStore. Records are copied in and out. Active runs are never
 * evicted; once more than `maxFinishedRuns` runs have finished, the one that finished first goes.
 */
export class InMemoryHarnessStatusStore implements HarnessStatusStore {
  readonly maxFinishedRuns: number;
  private readonly records = new Map<string, HarnessRunStatus>();
  /** Finished run ids in the order they finished (insertion order of the set). */
  private readonly finished = new Set<string>();
  private readonly onEvict: ((runId: string) => void) | undefined;

  constructor(options: InMemoryStatusStoreOptions = {}) {
    const max = options.maxFinishedRuns ?? DEFAULT_MAX_FINISHED_RUNS;
    if (!Number.isInteger(max) || max < 0) {
      throw validationError(`maxFinishedRuns must be a non-negative integer, got ${String(max)}`, {
        field: "maxFinishedRuns",
      });
    }
    this.maxFinishedRuns = max;
    this.onEvict = options.onEvict;
  }

  async save(status: HarnessRunStatus): Promise<void> {
    this.put(status);
  }

  /** Synchronous save; returns whether the record was stored. */
  put(status: HarnessRunStatus): boolean {
    validateStatus(status);
    if (!shouldReplaceStatus(this.records.get(status.runId), status)) return false;
    this.records.set(status.runId, structuredClone(status));
    if (!isActiveStatus(status.status) && !this.finished.has(status.runId)) {
      this.finished.add(status.runId);
      while (this.finished.size > this.maxFinishedRuns) {
        const oldest = this.finished.values().next().value as string;
        this.finished.delete(oldest);
        this.records.delete(oldest);
        this.onEvict?.(oldest);
      }
    }
    return true;
  }

  async get(runId: string): Promise<HarnessRunStatus | undefined> {
    const record = this.records.get(runId);
    return record === undefined ? undefined : structuredClone(record);
  }

  async list(query: StatusQuery = {}): Promise<HarnessRunStatus[]> {
    const keep = statusFilter(query);
    const hits = sortStatuses([...this.records.values()].filter(keep), query.order);
    return (query.limit === undefined ? hits : hits.slice(0, query.limit)).map((s) => structuredClone(s));
  }

  async reapStale(options: ReapOptions): Promise<HarnessRunStatus[]> {
    return this.reap(options);
  }

  /** Synchronous `reapStale` (the key-value store writes the changes through). */
  reap(options: ReapOptions): HarnessRunStatus[] {
    const cutoff = reapCutoff(options);
    const now = options.now ?? Date.now();
    const changed: HarnessRunStatus[] = [];
    for (const record of [...this.records.values()]) {
      if (!isStale(record, cutoff)) continue;
      const reaped = abandonedStatus(record, now);
      // `put` would refuse nothing here (finished replaces active), and it files the run as finished.
      if (this.put(reaped)) changed.push(structuredClone(reaped));
    }
    return changed;
  }

  async delete(runId: string): Promise<boolean> {
    this.finished.delete(runId);
    return this.records.delete(runId);
  }

  /** Records held (diagnostics). */
  get size(): number {
    return this.records.size;
  }
}
