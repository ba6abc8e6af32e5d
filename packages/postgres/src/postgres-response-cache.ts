import type { ResponseCache } from "@tinyagents/harness";
import { expiryFor } from "@tinyagents/harness/store";
import { type JsonValue, validationError } from "@tinyagents/inference";
import type pg from "pg";
import { pgDatabase, pgGuard } from "./postgres-errors.js";
import type { PostgresTables } from "./postgres-schema.js";

/**
 * Cached model responses (or any JSON) by key, in the `response_cache` table of a tinyagents
 * Postgres schema, shared by every worker, with an optional TTL per entry. Keys are opaque
 * strings (typically a request fingerprint). Create it through `PostgresStore.open(...).responseCache`.
 */
export class PostgresResponseCache implements ResponseCache {
  private readonly pool: pg.Pool;
  /** Runs a statement, turning driver errors into `storage` errors naming this table. */
  private readonly guard: <T>(action: string, work: () => Promise<T>) => Promise<T>;
  private readonly now: () => number;
  private readonly sql: Record<"get" | "put" | "del" | "clear" | "purge" | "size", string>;

  /** @internal Use `PostgresStore.open`. */
  constructor(pool: pg.Pool, tables: PostgresTables, now: () => number) {
    this.pool = pool;
    this.guard = pgGuard({ table: tables.responseCache, database: pgDatabase(pool) });
    this.now = now;
    const t = tables.responseCache;
    this.sql = {
      get: `SELECT value FROM ${t} WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)`,
      put:
        `INSERT INTO ${t} (key, value, created_at, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key) ` +
        "DO UPDATE SET value = excluded.value, created_at = excluded.created_at, expires_at = excluded.expires_at",
      del: `DELETE FROM ${t} WHERE key = $1`,
      clear: `DELETE FROM ${t}`,
      purge: `DELETE FROM ${t} WHERE expires_at IS NOT NULL AND expires_at <= $1`,
      size: `SELECT count(*) AS n FROM ${t} WHERE expires_at IS NULL OR expires_at > $1`,
    };
  }

  /** The live entry for `key`, or undefined. */
  async get(key: string): Promise<JsonValue | undefined> {
    checkKey(key);
    const { rows } = await this.guard("read the response cache", () =>
      this.pool.query<{ value: string }>(this.sql.get, [key, this.now()]),
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as JsonValue);
  }

  /** Store `value` under `key`, replacing any entry; `ttlMs` bounds its life. */
  async put(key: string, value: JsonValue, options: { ttlMs?: number } = {}): Promise<void> {
    checkKey(key);
    const json = JSON.stringify(value);
    if (json === undefined) throw validationError("cached value is not JSON data", { field: "value" });
    const now = this.now();
    const expiresAt = expiryFor(options.ttlMs, now) ?? null;
    await this.guard("write the response cache", () =>
      this.pool.query(this.sql.put, [key, json, now, expiresAt]),
    );
  }

  /** Remove an entry; true when one existed. */
  async delete(key: string): Promise<boolean> {
    checkKey(key);
    const result = await this.guard("delete from the response cache", () =>
      this.pool.query(this.sql.del, [key]),
    );
    return (result.rowCount ?? 0) > 0;
  }

  /** Remove every entry. */
  async clear(): Promise<void> {
    await this.guard("clear the response cache", () => this.pool.query(this.sql.clear));
  }

  /** Live entries. */
  async size(): Promise<number> {
    const { rows } = await this.guard("count the response cache", () =>
      this.pool.query<{ n: string }>(this.sql.size, [this.now()]),
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Delete expired entries; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.guard("purge the response cache", () =>
      this.pool.query(this.sql.purge, [this.now()]),
    );
    return result.rowCount ?? 0;
  }
}

function checkKey(key: unknown): void {
  if (typeof key !== "string" || key === "" || key.includes("\u0000"))
    throw validationError("cache key must be a non-empty string without NUL characters", { field: "key" });
}
