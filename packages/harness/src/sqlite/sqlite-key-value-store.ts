import { type JsonValue, validationError } from "@tinyagents/inference";
import {
  expiryFor,
  type KeyValueOp,
  type KeyValueStore,
  type PutOptions,
  sameJson,
  validateBatch,
  validateKeyText,
} from "../store/key-value-store.js";
import { guard, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";

/**
 * A KeyValueStore in the `kv` table of a tinyagents SQLite file. Any string is a valid
 * namespace or key. `batch` is one IMMEDIATE transaction: all-or-nothing, also across
 * processes sharing the file. Expired entries are invisible and purged by `purgeExpired()`.
 * Create it through `SqliteStore.open(...).keyValue`.
 */
export class SqliteKeyValueStore implements KeyValueStore {
  private readonly db: SqliteDb;
  /** Named in storage errors. */
  private readonly file: string;
  private readonly now: () => number;
  private readonly stmt: Record<"get" | "put" | "del" | "list" | "purge" | "take", SqliteStatement>;
  private readonly casTx: (
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ) => boolean;

  /** @internal Use `SqliteStore.open`. */
  constructor(db: SqliteDb, now: () => number) {
    this.db = db;
    this.file = db.filename;
    this.now = now;
    this.stmt = {
      get: db.prepare(
        "SELECT value FROM kv WHERE namespace = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)",
      ),
      put: db.prepare(
        "INSERT INTO kv (namespace, key, value, expires_at) VALUES (?, ?, ?, ?) " +
          "ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at",
      ),
      del: db.prepare("DELETE FROM kv WHERE namespace = ? AND key = ?"),
      list: db.prepare(
        "SELECT key FROM kv WHERE namespace = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY key",
      ),
      purge: db.prepare("DELETE FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ?"),
      take: db.prepare(
        "DELETE FROM kv WHERE namespace = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?) RETURNING value",
      ),
    };
    // Read, compare and write in one IMMEDIATE transaction: atomic across connections and processes.
    const cas = db.transaction(
      (namespace: string, key: string, expected: JsonValue | undefined, next: JsonValue | undefined) => {
        const row = this.stmt.get.get(namespace, key, this.now()) as { value: string } | undefined;
        if (!sameJson(row?.value, expected)) return false;
        if (next === undefined) this.stmt.del.run(namespace, key);
        else this.stmt.put.run(...this.row({ op: "put", namespace, key, value: next }));
        return true;
      },
    );
    this.casTx = (namespace, key, expected, next) => cas.immediate(namespace, key, expected, next) as boolean;
  }

  /** Compare-and-set in one IMMEDIATE transaction (see `KeyValueStore.compareAndSet`). */
  async compareAndSet(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): Promise<boolean> {
    checkNames(namespace, key);
    return guard("compare-and-set a key", () => this.casTx(namespace, key, expected, next));
  }

  /**
   * @internal The compare-and-set, synchronously: inside a caller's transaction it is a
   * savepoint of it (`SqliteStore.checkpoints` writes a new run's record with its status).
   */
  compareAndSetNow(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): boolean {
    checkNames(namespace, key);
    return this.casTx(namespace, key, expected, next);
  }

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkNames(namespace, key);
    const row = guard("read a key", () => this.stmt.get.get(namespace, key, this.now()), this.file) as
      | { value: string }
      | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  async put(namespace: string, key: string, value: JsonValue, options: PutOptions = {}): Promise<void> {
    const row = this.row({ op: "put", namespace, key, value, ...options });
    guard("write a key", () => this.stmt.put.run(...row), this.file);
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    checkNames(namespace, key);
    return guard(
      "delete a key",
      () =>
        this.db
          .transaction(() => {
            const live = this.stmt.get.get(namespace, key, this.now()) !== undefined;
            this.stmt.del.run(namespace, key);
            return live;
          })
          .immediate(),
      this.file,
    );
  }

  /** Atomic take (`DELETE ... RETURNING`): of concurrent takers on any connection, one gets the value. */
  async take(namespace: string, key: string): Promise<JsonValue | undefined> {
    checkNames(namespace, key);
    const row = guard("take a key", () => this.stmt.take.get(namespace, key, this.now()), this.file) as
      | { value: string }
      | undefined;
    return row === undefined ? undefined : (JSON.parse(row.value) as JsonValue);
  }

  async list(namespace: string): Promise<string[]> {
    checkNames(namespace, "-");
    const rows = guard("list keys", () => this.stmt.list.all(namespace, this.now()), this.file) as {
      key: string;
    }[];
    return rows.map((r) => r.key);
  }

  async batch(ops: readonly KeyValueOp[]): Promise<void> {
    validateBatch(ops);
    const rows = ops.map((op) => (op.op === "put" ? this.row(op) : undefined));
    guard(
      "apply a batch",
      () =>
        this.db
          .transaction(() => {
            ops.forEach((op, i) => {
              const row = rows[i];
              if (row !== undefined) this.stmt.put.run(...row);
              else this.stmt.del.run(op.namespace, op.key);
            });
          })
          .immediate(),
      this.file,
    );
  }

  /** Delete expired entries; returns how many. */
  purgeExpired(): number {
    return guard("purge expired keys", () => this.stmt.purge.run(this.now()).changes, this.file);
  }

  private row(op: Extract<KeyValueOp, { op: "put" }>): [string, string, string, number | null] {
    checkNames(op.namespace, op.key);
    const json = JSON.stringify(op.value);
    if (json === undefined)
      throw validationError(`value for key "${op.key}" is not JSON data`, { field: "value" });
    return [op.namespace, op.key, json, expiryFor(op.ttlMs, this.now()) ?? null];
  }
}

function checkNames(namespace: unknown, key: unknown): void {
  if (typeof namespace !== "string" || namespace === "") {
    throw validationError("namespace must be a non-empty string", { field: "namespace" });
  }
  if (typeof key !== "string" || key === "")
    throw validationError("key must be a non-empty string", { field: "key" });
  validateKeyText(namespace as string, key as string);
}
