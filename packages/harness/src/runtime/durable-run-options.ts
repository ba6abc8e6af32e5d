import { validationError } from "@tinyagents/inference";
import { CheckpointStore } from "../durability/checkpoint-store.js";
import type { RunDurability } from "../durability/run-durability.js";
import type { KeyValueStore } from "../store/key-value-store.js";

/**
 * Where a durable run keeps its record: a `CheckpointStore`, any `KeyValueStore` with
 * `compareAndSet` (memory, file, SQLite's `store.keyValue`), or a store that has one
 * (`SqliteStore`, `PostgresStore`: its `checkpoints`, else its `keyValue`).
 */
export type DurableRunStore =
  | CheckpointStore
  | KeyValueStore
  | { keyValue: KeyValueStore; checkpoints?: CheckpointStore };

/**
 * `agent.run(input, { durable: { ... } })`: run in process, crash-proof. The run is taken in
 * `store` (owner, fencing epoch, lease) before it does anything; its input is durable before the
 * first model call; it is checkpointed after every model response and tool batch; it renews its
 * lease while it lives. After a crash, `agent.recover(runId, sameOptions)` (or a supervisor,
 * `superviseRuns`) continues it in another process, exactly once. See docs/durability.md.
 */
export interface DurableRunOptions {
  /** Where the run's durable record lives (required). */
  store: DurableRunStore;
  /**
   * Who runs it: a worker or process id. Default: a fresh id per run or recovery
   * (`process-<pid>-<n>`), so two never share one; give a stable id to let a restarted worker
   * take its own runs back before their lease lapses.
   */
  ownerId?: string;
  /** How long after its last renewal the run counts as alive (default 30 s, >= 10 ms). */
  leaseMs?: number;
  /** How often a live run renews its lease (default a third of `leaseMs`). */
  heartbeatMs?: number;
  /** The agent's name, recorded with the run: a supervisor recovers the run with this agent. */
  agent?: string;
  /**
   * Make the run's events durable (`() => observed.flush()` of `attachObservability`), awaited
   * before every checkpoint so a checkpoint never covers events the journal could still lose.
   */
  flush?: () => Promise<void>;
}

const KEYS = new Set(["store", "ownerId", "leaseMs", "heartbeatMs", "agent", "flush"]);

/** Whether `value` is front-door durable options (as opposed to an engine's `DurableContext`). */
export function isDurableRunOptions(value: unknown): value is DurableRunOptions {
  return typeof value === "object" && value !== null && "store" in value && !("step" in value);
}

/** The `CheckpointStore` of a {@link DurableRunStore} (`validation` for anything else). */
export function checkpointStoreOf(store: DurableRunStore | undefined): CheckpointStore {
  if (store instanceof CheckpointStore) return store;
  if (typeof store === "object" && store !== null) {
    const holder = store as { keyValue?: KeyValueStore; checkpoints?: unknown };
    if (holder.checkpoints instanceof CheckpointStore) return holder.checkpoints;
    if (isKeyValueStore(holder.keyValue)) return new CheckpointStore(holder.keyValue);
    if (isKeyValueStore(store)) return new CheckpointStore(store);
  }
  throw validationError(
    "durable.store must be a CheckpointStore, a KeyValueStore with compareAndSet, or a store with `keyValue` (SqliteStore, PostgresStore)",
    { field: "durable.store" },
  );
}

/** Check front-door durable options and turn them into the loop's `RunDurability`. */
export function toRunDurability(options: DurableRunOptions): RunDurability {
  for (const key of Object.keys(options)) {
    if (!KEYS.has(key)) {
      throw validationError(`unknown durable option "${key}"; known: ${[...KEYS].join(", ")}`, {
        field: `durable.${key}`,
      });
    }
  }
  if (options.flush !== undefined && typeof options.flush !== "function") {
    throw validationError("durable.flush must be a function returning a promise", { field: "durable.flush" });
  }
  const durability: RunDurability = { checkpoints: checkpointStoreOf(options.store) };
  if (options.ownerId !== undefined) durability.ownerId = options.ownerId;
  if (options.leaseMs !== undefined) durability.leaseMs = options.leaseMs;
  if (options.heartbeatMs !== undefined) durability.heartbeatMs = options.heartbeatMs;
  if (options.agent !== undefined) durability.agent = options.agent;
  if (options.flush !== undefined) durability.flush = options.flush;
  return durability;
}

function isKeyValueStore(value: unknown): value is KeyValueStore {
  const v = value as Partial<KeyValueStore> | undefined;
  return typeof v?.get === "function" && typeof v.put === "function" && typeof v.list === "function";
}
