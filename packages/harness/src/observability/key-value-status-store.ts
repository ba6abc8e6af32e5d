import type { JsonValue } from "@tinyagents/inference";
import { type ReapOptions, reapCutoff } from "../durability/reap-stale.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { KeyValueStore } from "../store/key-value-store.js";
import { encodeStoreName } from "../store/store-names.js";
import { DEFAULT_MAX_FINISHED_RUNS, InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import type { HarnessStatusStore, StatusQuery } from "./status-store.js";

/** Options of a {@link KeyValueHarnessStatusStore}. */
export interface KeyValueStatusStoreOptions {
  /** Key-value namespace of the records (default `"run-status"`). */
  namespace?: string;
  /** Finished runs kept before the oldest finished one is deleted (default 10,000). */
  maxFinishedRuns?: number;
}

/**
 * A HarnessStatusStore persisted in any KeyValueStore (file, SQLite, ...): one key per run.
 *
 * It keeps a write-through in-memory index: on first use it loads every record of the
 * namespace, then answers queries from memory and writes each accepted save (and each
 * eviction) through to the backend. Records written by OTHER processes after that load are
 * not seen by `list` (use `refresh()`, or the SQLite status store, which queries the database).
 */
export class KeyValueHarnessStatusStore implements HarnessStatusStore {
  private readonly store: KeyValueStore;
  private readonly namespace: string;
  private readonly cache: InMemoryHarnessStatusStore;
  private loaded: Promise<void> | undefined;
  private readonly evicted: string[] = [];

  constructor(store: KeyValueStore, options: KeyValueStatusStoreOptions = {}) {
    this.store = store;
    this.namespace = options.namespace ?? "run-status";
    this.cache = new InMemoryHarnessStatusStore({
      maxFinishedRuns: options.maxFinishedRuns ?? DEFAULT_MAX_FINISHED_RUNS,
      onEvict: (runId) => this.evicted.push(runId),
    });
  }

  async save(status: HarnessRunStatus): Promise<void> {
    await this.load();
    if (!this.cache.put(status)) return;
    await this.store.put(this.namespace, encodeStoreName(status.runId), status as unknown as JsonValue);
    for (const runId of this.evicted.splice(0))
      await this.store.delete(this.namespace, encodeStoreName(runId));
  }

  async get(runId: string): Promise<HarnessRunStatus | undefined> {
    await this.load();
    return this.cache.get(runId);
  }

  async list(query: StatusQuery = {}): Promise<HarnessRunStatus[]> {
    await this.load();
    return this.cache.list(query);
  }

  async delete(runId: string): Promise<boolean> {
    await this.load();
    const existed = await this.cache.delete(runId);
    await this.store.delete(this.namespace, encodeStoreName(runId));
    return existed;
  }

  /**
   * Reload from the backend (runs of other processes too), mark stale runs `abandoned`, and
   * write each change (and any eviction it causes) through.
   */
  async reapStale(options: ReapOptions): Promise<HarnessRunStatus[]> {
    reapCutoff(options); // validates before any I/O
    await this.refresh();
    const changed = this.cache.reap(options);
    for (const status of changed)
      await this.store.put(this.namespace, encodeStoreName(status.runId), status as unknown as JsonValue);
    for (const runId of this.evicted.splice(0))
      await this.store.delete(this.namespace, encodeStoreName(runId));
    return changed;
  }

  /** Reload every record from the backend (picks up other processes' writes). */
  async refresh(): Promise<void> {
    this.loaded = undefined;
    await this.load();
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const records: HarnessRunStatus[] = [];
      for (const key of await this.store.list(this.namespace)) {
        const record = await this.store.get(this.namespace, key);
        if (record !== undefined) records.push(record as unknown as HarnessRunStatus);
      }
      // Oldest first, so eviction order follows completion order.
      records.sort((a, b) => (a.endedAt ?? a.updatedAt) - (b.endedAt ?? b.updatedAt));
      for (const record of records) this.cache.put(record);
    })().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }
}
