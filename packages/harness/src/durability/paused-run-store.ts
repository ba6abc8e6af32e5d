import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
import { claimConflict } from "./durability-errors.js";
import { type PausedRun, validatePausedRun } from "./paused-run.js";

/** The default KeyValueStore namespace of paused runs. */
export const PAUSED_RUNS_NAMESPACE = "paused_runs";

/**
 * Persist and reload paused runs in any {@link KeyValueStore} (in memory, file, SQLite, ...),
 * keyed by run id, so a run paused in one process can be resumed in another.
 */
export class PausedRunStore {
  readonly store: KeyValueStore;
  readonly namespace: string;

  constructor(store: KeyValueStore, namespace = PAUSED_RUNS_NAMESPACE) {
    this.store = store;
    this.namespace = namespace;
  }

  /** Save `paused` under its run id (replacing an older pause of the same run). */
  async save(paused: PausedRun): Promise<void> {
    // The JSON round trip proves the value is plain data and detaches it from the caller.
    const value = JSON.parse(JSON.stringify(paused)) as JsonValue;
    try {
      await this.store.put(this.namespace, paused.runId, value);
    } catch (error) {
      throw new TinyAgentsError("storage", `saving paused run "${paused.runId}" failed: ${String(error)}`, {
        cause: error,
        details: { runId: paused.runId, namespace: this.namespace },
      });
    }
  }

  /** The paused run saved for `runId` (validated), or `undefined` when there is none. */
  async load(runId: string): Promise<PausedRun | undefined> {
    const value = await this.store.get(this.namespace, runId);
    return value === undefined ? undefined : validatePausedRun(value);
  }

  /** Like `load`, but a missing run is a `storage` error naming the ids that are stored. */
  async require(runId: string): Promise<PausedRun> {
    const paused = await this.load(runId);
    if (paused !== undefined) return paused;
    const known = (await this.store.list(this.namespace)).join(", ") || "(none)";
    throw new TinyAgentsError(
      "storage",
      `no paused run "${runId}" in namespace "${this.namespace}"; stored: ${known}`,
      {
        details: { runId, namespace: this.namespace },
      },
    );
  }

  /**
   * Take the paused run of `runId` for resuming, exclusively: the record is removed in the same
   * atomic step (`KeyValueStore.take`: memory by delete, file by rename, SQLite by
   * `DELETE ... RETURNING`), so of N concurrent claimers (in any processes sharing the store)
   * exactly one gets it; the others get a `conflict` error naming the run id. Resume what you
   * claimed; to give it back (the resume could not start), `save` it again.
   */
  async claim(runId: string): Promise<PausedRun> {
    let value: JsonValue | undefined;
    try {
      if (this.store.take !== undefined) value = await this.store.take(this.namespace, runId);
      else {
        const current = await this.store.get(this.namespace, runId);
        // Without an atomic take, the claimer whose delete removed the entry wins.
        if (current !== undefined && (await this.store.delete(this.namespace, runId))) value = current;
      }
    } catch (error) {
      if (TinyAgentsError.isInstance(error)) throw error;
      throw new TinyAgentsError("storage", `claiming paused run "${runId}" failed: ${String(error)}`, {
        cause: error,
        details: { runId, namespace: this.namespace },
      });
    }
    if (value === undefined) throw claimConflict(runId, "paused run", `namespace "${this.namespace}"`);
    return validatePausedRun(value);
  }

  /** Forget the paused run of `runId` (after resuming it). Returns whether one was stored. */
  delete(runId: string): Promise<boolean> {
    return this.store.delete(this.namespace, runId);
  }
}
