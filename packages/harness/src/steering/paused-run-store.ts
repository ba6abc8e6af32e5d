import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { KeyValueStore } from "../store/key-value-store.js";
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

  /** Forget the paused run of `runId` (after resuming it). Returns whether one was stored. */
  delete(runId: string): Promise<boolean> {
    return this.store.delete(this.namespace, runId);
  }
}
