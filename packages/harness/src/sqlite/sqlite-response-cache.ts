import { type JsonValue, validationError } from "@tinyagents/inference";
import { expiryFor } from "../store/key-value-store.js";
import { guard, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";

/**
 * Cached model responses (or any JSON) by key, in the `response_cache` table of a tinyagents
 * SQLite file, with an optional TTL per entry. Keys are opaque strings (typically a request
 * fingerprint). Create it through `SqliteStore.open(...).responseCache`.
 */
export class SqliteResponseCache {
  /** Named in storage errors. */
  private readonly file: string;
  private readonly now: () => number;
  private readonly stmt: Record<"get" | "put" | "del" | "clear" | "purge" | "size", SqliteStatement>;

  /** @internal Use `SqliteStore.open`. */
  constructor(db: SqliteDb, now: () => number) {
    this.file = db.filename;
    this.now = now;
    this.stmt = {
      get: db.prepare(
        "SELECT value FROM response_cache WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)",
      ),
      put: db.prepare(
        "INSERT INTO response_cache (key, value, created_at, expires_at) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (key) DO UPDATE SET value = excluded.value, created_at = excluded.created_at, expires_at = excluded.expires_at",
      ),
      del: db.prepare("DELETE FROM response_cache WHERE key = ?"),
      clear: db.prepare("DELETE FROM response_cache"),
      purge: db.prepare("DELETE FROM response_cache WHERE expires_at IS NOT NULL AND expires_at <= ?"),
      size: db.prepare("SELECT COUNT(*) AS n FROM response_cache WHERE expires_at IS NULL OR expires_at > ?"),
    };
  }

  /** The live entry for `key`, or undefined. */
  async get(key: string): Promise<JsonValue | undefined> {
    checkKey(key);
    const row = guard("read the response cache", () => this.stmt.get.get(key, this.now()), this.file) as
      | { value: string }
      | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  /** Store `value` under `key`, replacing any entry; `ttlMs` bounds its life. */
  async put(key: string, value: JsonValue, options: { ttlMs?: number } = {}): Promise<void> {
    checkKey(key);
    const json = JSON.stringify(value);
    if (json === undefined) throw validationError("cached value is not JSON data", { field: "value" });
    const now = this.now();
    const expiresAt = expiryFor(options.ttlMs, now) ?? null;
    guard("write the response cache", () => this.stmt.put.run(key, json, now, expiresAt), this.file);
  }

  /** Remove an entry; true when one existed. */
  async delete(key: string): Promise<boolean> {
    checkKey(key);
    return guard("delete from the response cache", () => this.stmt.del.run(key).changes > 0, this.file);
  }

  /** Remove every entry. */
  async clear(): Promise<void> {
    guard("clear the response cache", () => this.stmt.clear.run(), this.file);
  }

  /** Live entries. */
  async size(): Promise<number> {
    return guard(
      "count the response cache",
      () => (this.stmt.size.get(this.now()) as { n: number }).n,
      this.file,
    );
  }

  /** Delete expired entries; returns how many. */
  purgeExpired(): number {
    return guard("purge the response cache", () => this.stmt.purge.run(this.now()).changes, this.file);
  }
}

function checkKey(key: unknown): void {
  if (typeof key !== "string" || key === "")
    throw validationError("cache key must be a non-empty string", { field: "key" });
}
