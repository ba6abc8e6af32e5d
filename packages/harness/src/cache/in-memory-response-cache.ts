import { type JsonValue, validationError } from "@tinyagents/inference";
import { utf8ByteLength } from "../encoding/utf8.js";
import type { ResponseCache, ResponseCacheStats } from "./response-cache.js";

/** Bounds of an {@link InMemoryResponseCache}. */
export interface InMemoryResponseCacheOptions {
  /** Most entries kept (default 1,024). */
  maxEntries?: number;
  /** Most UTF-8 bytes of stored JSON kept (default 64 MiB). An entry larger than this is not stored. */
  maxBytes?: number;
  /** Default time to live of an entry, in ms (default: none). `put`'s `ttlMs` wins. */
  ttlMs?: number;
  /** Clock for expiry (default `Date.now`; pass a test clock's `now`). */
  now?: () => number;
}

interface Entry {
  json: string;
  bytes: number;
  expiresAt: number | undefined;
}

/**
 * A least-recently-used response cache in memory, bounded by entry count AND by bytes, with an
 * optional time to live. Values are stored as JSON text: a `get` returns a fresh copy, so callers
 * can never corrupt an entry. All operations are O(1) (plus the JSON work of the value).
 * Throws `validation` at construction for bounds that are not positive integers.
 */
export class InMemoryResponseCache implements ResponseCache {
  readonly maxEntries: number;
  readonly maxBytes: number;
  private readonly ttlMs: number | undefined;
  private readonly now: () => number;
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(options: InMemoryResponseCacheOptions = {}) {
    this.maxEntries = positiveInteger(options.maxEntries ?? 1024, "maxEntries");
    this.maxBytes = positiveInteger(options.maxBytes ?? 64 * 1024 * 1024, "maxBytes");
    if (options.ttlMs !== undefined) positiveInteger(options.ttlMs, "ttlMs");
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<JsonValue | undefined> {
    return this.getSync(key);
  }

  /** `get` without the promise. */
  getSync(key: string): JsonValue | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || this.expired(key, entry)) {
      this.misses++;
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.hits++;
    return JSON.parse(entry.json) as JsonValue;
  }

  async put(key: string, value: JsonValue, options: { ttlMs?: number } = {}): Promise<void> {
    this.putSync(key, value, options);
  }

  /** `put` without the promise. Returns whether the value was stored (false when larger than `maxBytes`). */
  putSync(key: string, value: JsonValue, options: { ttlMs?: number } = {}): boolean {
    const json = JSON.stringify(value);
    if (json === undefined) throw validationError("cached value is not JSON data", { field: "value" });
    const bytes = utf8ByteLength(json) + utf8ByteLength(key);
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    const ttl = options.ttlMs ?? this.ttlMs;
    this.entries.set(key, { json, bytes, expiresAt: ttl === undefined ? undefined : this.now() + ttl });
    this.totalBytes += bytes;
    while (this.entries.size > this.maxEntries || this.totalBytes > this.maxBytes) {
      const oldest = this.entries.keys().next().value as string;
      this.delete(oldest);
      this.evictions++;
    }
    return true;
  }

  /** Remove an entry; true when one existed. */
  delete(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.totalBytes -= entry.bytes;
    return true;
  }

  /** Remove every entry (counters are kept). */
  clear(): void {
    this.entries.clear();
    this.totalBytes = 0;
  }

  /** Live entries (expired ones still held are counted until touched). */
  get size(): number {
    return this.entries.size;
  }

  /** UTF-8 bytes held (stored JSON plus keys). */
  get bytes(): number {
    return this.totalBytes;
  }

  stats(): ResponseCacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      evictions: this.evictions,
      entries: this.entries.size,
      bytes: this.totalBytes,
    };
  }

  private expired(key: string, entry: Entry): boolean {
    if (entry.expiresAt === undefined || entry.expiresAt > this.now()) return false;
    this.delete(key);
    return true;
  }
}

function positiveInteger(value: number, field: string): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw validationError(
      `InMemoryResponseCache: ${field} must be a positive integer, got ${String(value)}`,
      {
        field,
      },
    );
  }
  return value;
}
