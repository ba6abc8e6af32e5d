import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { PausedRun } from "../contracts/paused-run.js";
import { validatePausedRun } from "../steering/paused-run.js";
import type { KeyValueStore } from "../store/key-value-store.js";
import type { RunCheckpoints, ToolIntent } from "./checkpoint-contract.js";
import { claimConflict } from "./durability-errors.js";

/** The default KeyValueStore namespaces of checkpoints and of "once" tools' intents. */
export const CHECKPOINTS_NAMESPACE = "checkpoints";
export const TOOL_INTENTS_NAMESPACE = "tool_intents";

/**
 * Checkpoints of running runs (opt-in, `durability.checkpoints`) in any {@link KeyValueStore}
 * (in memory, file, SQLite), keyed by run id. A checkpoint is a `PausedRun` (reason
 * `"checkpoint"`) whose `eventOffset` is the journal offset it covers; the loop rewrites it at
 * every safe boundary and deletes it when the run ends. `harness.recover` claims it exclusively
 * (`KeyValueStore.take`) and continues the run.
 */
export class CheckpointStore implements RunCheckpoints {
  readonly store: KeyValueStore;
  readonly namespace: string;
  readonly intentsNamespace: string;

  constructor(
    store: KeyValueStore,
    namespace = CHECKPOINTS_NAMESPACE,
    intentsNamespace = TOOL_INTENTS_NAMESPACE,
  ) {
    this.store = store;
    this.namespace = namespace;
    this.intentsNamespace = intentsNamespace;
  }

  /** Save (replace) the checkpoint of `checkpoint.runId`. */
  async save(checkpoint: PausedRun): Promise<void> {
    const value = JSON.parse(JSON.stringify(checkpoint)) as JsonValue;
    await this.guard(checkpoint.runId, "saving", () =>
      this.store.put(this.namespace, checkpoint.runId, value),
    );
  }

  /** The checkpoint of `runId` (validated), or `undefined`. */
  async load(runId: string): Promise<PausedRun | undefined> {
    const value = await this.store.get(this.namespace, runId);
    return value === undefined ? undefined : validatePausedRun(value);
  }

  /** Run ids that have a checkpoint (runs that have not finished, or whose process died). */
  list(): Promise<string[]> {
    return this.store.list(this.namespace);
  }

  /**
   * Take the checkpoint of `runId` for recovering, exclusively (removed in the same atomic step):
   * of N concurrent claimers exactly one gets it, the others get a `conflict` error naming the
   * run id. The recovered run writes its own checkpoints from its next safe boundary on.
   */
  async claim(runId: string): Promise<PausedRun> {
    const value = await this.guard(runId, "claiming", async () => {
      if (this.store.take !== undefined) return this.store.take(this.namespace, runId);
      const current = await this.store.get(this.namespace, runId);
      return current !== undefined && (await this.store.delete(this.namespace, runId)) ? current : undefined;
    });
    if (value === undefined) throw claimConflict(runId, "checkpoint", `namespace "${this.namespace}"`);
    return validatePausedRun(value);
  }

  /** Forget the checkpoint of `runId` and the intents of its tool calls (the run finished). */
  async delete(runId: string): Promise<void> {
    await this.store.delete(this.namespace, runId);
    const prefix = `${runId}:`;
    for (const key of await this.store.list(this.intentsNamespace)) {
      if (key.startsWith(prefix)) await this.store.delete(this.intentsNamespace, key);
    }
  }

  /** The recorded intent of tool call `callId` of `runId`, if any. */
  async intent(runId: string, callId: string): Promise<ToolIntent | undefined> {
    const value = await this.store.get(this.intentsNamespace, `${runId}:${callId}`);
    return value === undefined ? undefined : (value as unknown as ToolIntent);
  }

  /** Record (or complete, with `result`) the intent of a "once" tool call. */
  async recordIntent(intent: ToolIntent): Promise<void> {
    const value = JSON.parse(JSON.stringify(intent)) as JsonValue;
    await this.guard(intent.runId, "recording a tool intent of", () =>
      this.store.put(this.intentsNamespace, `${intent.runId}:${intent.callId}`, value),
    );
  }

  private async guard<T>(runId: string, doing: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (TinyAgentsError.isInstance(error)) throw error;
      throw new TinyAgentsError("storage", `${doing} checkpoint "${runId}" failed: ${String(error)}`, {
        cause: error,
        details: { runId, namespace: this.namespace },
      });
    }
  }
}
