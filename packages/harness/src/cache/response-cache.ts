import type { JsonValue } from "@tinyagents/inference";

/**
 * A local cache of model responses, keyed by `cacheKey(...)`. Values are `ModelResponse`s as
 * plain JSON data. Implementations must tolerate concurrent use; a failing `get` or `put` never
 * fails a run (the loop treats it as a miss and reports it to the binding's `onError`).
 *
 * `SqliteResponseCache` (`@tinyagents/harness/sqlite`) and {@link InMemoryResponseCache}
 * implement it; so can any store with these two methods.
 */
export interface ResponseCache {
  /** The live entry for `key`, or `undefined`. */
  get(key: string): Promise<JsonValue | undefined>;
  /** Store `value` under `key`, replacing any entry; `ttlMs` bounds its life. */
  put(key: string, value: JsonValue, options?: { ttlMs?: number }): Promise<void>;
}

/** Counters of a response cache. */
export interface ResponseCacheStats {
  hits: number;
  misses: number;
  /** Entries dropped to respect the entry or byte bound (expired entries are not counted). */
  evictions: number;
  entries: number;
  /** UTF-8 bytes of the stored JSON. */
  bytes: number;
}
