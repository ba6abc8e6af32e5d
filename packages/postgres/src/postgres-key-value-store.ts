import type { KeyValueStore } from "@tinyagents/harness";
import {
  expiryFor,
  type KeyValueOp,
  type PutOptions,
  validateBatch,
  validateKeyText,
} from "@tinyagents/harness/store";
import { type JsonValue, validationError } from "@tinyagents/inference";
import type pg from "pg";
import { pgDatabase, pgGuard } from "./postgres-errors.js";
import type { PostgresTables } from "./postgres-schema.js";
import { inTransaction } from "./postgres-transaction.js";

/**
 * A KeyValueStore in the `kv` table of a tinyagents Postgres schema, shared by every process
 * that points at the database. Each call is one statement (or, for `batch`, one transaction:
 * all-or-nothing). `take` is one `DELETE ... RETURNING`: of concurrent takers of one key, on any
 * worker, exactly one gets the value — the claim behind `CheckpointStore.claim` and
 * `PausedRunStore` resumes. TTLs use this process's clock (`now`); expired entries are
 * invisible and purged by `purgeExpired()`. Create it through `PostgresStore.open(...).keyValue`.
 */
export class PostgresKeyValueStore implements KeyValueStore {
  private readonly pool: pg.Pool;
  /** Runs a statement, turning driver errors into `storage` errors naming this table. */
  private readonly guard: <T>(action: string, work: () => Promise<T>) => Promise<T>;
  private readonly now: () => number;
  private readonly sql: Record<
    "get" | "put" | "del" | "list" | "purge" | "take" | "create" | "swap" | "remove",
    string
  >;

  /** @internal Use `PostgresStore.open`. */
  constructor(pool: pg.Pool, tables: PostgresTables, now: () => number) {
    this.pool = pool;
    this.guard = pgGuard({ table: tables.kv, database: pgDatabase(pool) });
    this.now = now;
    const live = "(expires_at IS NULL OR expires_at > $3)";
    this.sql = {
      get: `SELECT value FROM ${tables.kv} WHERE namespace = $1 AND key = $2 AND ${live}`,
      put:
        `INSERT INTO ${tables.kv} (namespace, key, value, expires_at) VALUES ($1, $2, $3, $4) ` +
        "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
      del: `DELETE FROM ${tables.kv} WHERE namespace = $1 AND key = $2 RETURNING ${live} AS live`,
      list: `SELECT key FROM ${tables.kv} WHERE namespace = $1 AND (expires_at IS NULL OR expires_at > $2)`,
      purge: `DELETE FROM ${tables.kv} WHERE expires_at IS NOT NULL AND expires_at <= $1`,
      take: `DELETE FROM ${tables.kv} WHERE namespace = $1 AND key = $2 AND ${live} RETURNING value`,
      // compareAndSet, one statement each: a concurrent writer of the row makes the second one
      // re-check its WHERE on the new row version (READ COMMITTED), so exactly one wins.
      create:
        `INSERT INTO ${tables.kv} AS cur (namespace, key, value, expires_at) VALUES ($1, $2, $4, NULL) ` +
        "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = NULL " +
        "WHERE cur.expires_at IS NOT NULL AND cur.expires_at <= $3",
      swap:
        `UPDATE ${tables.kv} SET value = $5, expires_at = NULL ` +
        `WHERE namespace = $1 AND key = $2 AND ${live} AND value = $4`,
      remove: `DELETE FROM ${tables.kv} WHERE namespace = $1 AND key = $2 AND ${live} AND value = $4`,
    };
  }

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkNames(namespace, key);
    const { rows } = await this.guard("read a key", () =>
      this.pool.query<{ value: string }>(this.sql.get, [namespace, key, this.now()]),
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as JsonValue);
  }

  async put(namespace: string, key: string, value: JsonValue, options: PutOptions = {}): Promise<void> {
    const row = this.row({ op: "put", namespace, key, value, ...options });
    await this.guard("write a key", () => this.pool.query(this.sql.put, row));
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    checkNames(namespace, key);
    const { rows } = await this.guard("delete a key", () =>
      this.pool.query<{ live: boolean }>(this.sql.del, [namespace, key, this.now()]),
    );
    return rows[0]?.live === true;
  }

  /** Atomic take (`DELETE ... RETURNING`): of concurrent takers on any connection, one gets the value. */
  async take(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkNames(namespace, key);
    const { rows } = await this.guard("take a key", () =>
      this.pool.query<{ value: string }>(this.sql.take, [namespace, key, this.now()]),
    );
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as JsonValue);
  }

  /**
   * @internal `[namespace, key, now, value]` for a create (absent or expired key), the names
   * checked. For a statement that creates a key as part of more (a run's start).
   */
  createParams(namespace: string, key: string, next: JsonValue): unknown[] {
    checkNames(namespace, key);
    return [namespace, key, this.now(), JSON.stringify(next)];
  }

  /**
   * @internal Create `key` (absent or expired) with `next` on `client`, inside the caller's
   * transaction (`PostgresStore.checkpoints` writes a new run's record with its status). True when
   * it wrote.
   */
  async createIn(client: pg.PoolClient, namespace: string, key: string, next: JsonValue): Promise<boolean> {
    checkNames(namespace, key);
    const result = await client.query(this.sql.create, [namespace, key, this.now(), JSON.stringify(next)]);
    return (result.rowCount ?? 0) === 1;
  }

  /** Compare-and-set in one statement (see `KeyValueStore.compareAndSet`). */
  async compareAndSet(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): Promise<boolean> {
    checkNames(namespace, key);
    const nextJson = next === undefined ? undefined : JSON.stringify(next);
    if (next !== undefined && nextJson === undefined)
      throw validationError(`value for key "${key}" is not JSON data`, { field: "value" });
    const now = this.now();
    if (expected === undefined) {
      if (nextJson === undefined) return (await this.get(namespace, key)) === undefined;
      const result = await this.guard("compare-and-set a key", () =>
        this.pool.query(this.sql.create, [namespace, key, now, nextJson]),
      );
      return (result.rowCount ?? 0) === 1;
    }
    const expectedJson = JSON.stringify(expected);
    const result = await this.guard("compare-and-set a key", () =>
      nextJson === undefined
        ? this.pool.query(this.sql.remove, [namespace, key, now, expectedJson])
        : this.pool.query(this.sql.swap, [namespace, key, now, expectedJson, nextJson]),
    );
    return (result.rowCount ?? 0) === 1;
  }

  async list(namespace: string): Promise<string[]> {
    checkNames(namespace, "-");
    const { rows } = await this.guard("list keys", () =>
      this.pool.query<{ key: string }>(this.sql.list, [namespace, this.now()]),
    );
    // Sorted here, not by ORDER BY: JavaScript's order, whatever the database's collation.
    return rows.map((r) => r.key).sort();
  }

  /** One transaction: every operation or none. */
  async batch(ops: readonly KeyValueOp[]): Promise<void> {
    validateBatch(ops);
    const rows = ops.map((op) => (op.op === "put" ? this.row(op) : undefined));
    for (const op of ops) checkNames(op.namespace, op.key);
    if (ops.length === 0) return;
    await this.guard("apply a batch", () =>
      inTransaction(this.pool, async (client) => {
        for (let i = 0; i < ops.length; i++) {
          const row = rows[i];
          const op = ops[i] as KeyValueOp;
          if (row !== undefined) await client.query(this.sql.put, row);
          else await client.query(this.sql.del, [op.namespace, op.key, this.now()]);
        }
      }),
    );
  }

  /** Delete expired entries; returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.guard("purge expired keys", () =>
      this.pool.query(this.sql.purge, [this.now()]),
    );
    return result.rowCount ?? 0;
  }

  private row(op: Extract<KeyValueOp, { op: "put" }>): [string, string, string, number | null] {
    checkNames(op.namespace, op.key);
    const json = JSON.stringify(op.value);
    if (json === undefined)
      throw validationError(`value for key "${op.key}" is not JSON data`, { field: "value" });
    return [op.namespace, op.key, json, expiryFor(op.ttlMs, this.now()) ?? null];
  }
}

/** Non-empty strings without NUL (Postgres text cannot hold U+0000). */
export function checkNames(namespace: unknown, key: unknown): void {
  if (typeof namespace !== "string" || namespace === "" || namespace.includes("\u0000")) {
    throw validationError("namespace must be a non-empty string without NUL characters", {
      field: "namespace",
    });
  }
  if (typeof key !== "string" || key === "" || key.includes("\u0000")) {
    throw validationError("key must be a non-empty string without NUL characters", { field: "key" });
  }
  validateKeyText(namespace as string, key as string);
}
