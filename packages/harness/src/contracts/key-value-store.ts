import type { JsonValue } from "@tinyagents/inference";

/** Options of a single `put`. */
export interface PutOptions {
  /** Time to live in milliseconds: the entry is invisible to `get`/`list` once it has elapsed. */
  ttlMs?: number;
}

/** One operation of a {@link KeyValueStore.batch}. */
export type KeyValueOp =
  | { op: "put"; namespace: string; key: string; value: JsonValue; ttlMs?: number }
  | { op: "delete"; namespace: string; key: string };

/**
 * A namespaced key-value store: the boundary for external stores; values are JSON data.
 *
 * Contract every implementation keeps:
 * - values are copied in and out (mutating a returned value never changes the store);
 * - an expired entry (see `PutOptions.ttlMs`) behaves exactly like a missing one;
 * - `list` returns the live keys of one namespace, sorted;
 * - `batch` applies its operations in order; whether it is all-or-nothing is documented by each
 *   implementation (in-memory and SQLite: atomic; file-backed: each operation atomic on its own).
 */
export interface KeyValueStore {
  get(namespace: string, key: string): Promise<JsonValue | undefined>;
  put(namespace: string, key: string, value: JsonValue, options?: PutOptions): Promise<void>;
  /** True when a live entry was removed. */
  delete(namespace: string, key: string): Promise<boolean>;
  /** Keys in a namespace, sorted. */
  list(namespace: string): Promise<string[]>;
  batch(ops: readonly KeyValueOp[]): Promise<void>;
  /**
   * Remove a live entry and return its value in one atomic step: of several concurrent `take`s
   * of one key (in any process sharing the store) exactly one gets the value, the others get
   * `undefined`. Optional: without it, callers fall back to `get` then `delete`, where the one
   * whose `delete` returned true wins. (In-memory: one synchronous step; file: rename to a
   * private name; SQLite: `DELETE ... RETURNING`.)
   */
  take?(namespace: string, key: string): Promise<JsonValue | undefined>;
  /**
   * Atomic compare-and-set of one key: write `next` (or delete the entry when `next` is
   * `undefined`) only when the live value stored is `expected` (compared as JSON text, so pass
   * the value exactly as `get` returned it; `undefined`: only when there is no live entry).
   * Resolves true when it wrote. Of several concurrent calls with the same `expected` (in any
   * process sharing the store) exactly one succeeds. Optional: the fenced run records of
   * `CheckpointStore` need it (every built-in store has it: memory, file, SQLite, Postgres).
   */
  compareAndSet?(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): Promise<boolean>;
}
