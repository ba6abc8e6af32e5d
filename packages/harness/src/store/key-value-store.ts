import { type JsonValue, validationError } from "@tinyagents/inference";
import type { KeyValueOp, KeyValueStore, PutOptions } from "../contracts/key-value-store.js";
import { assertStorableKey } from "../encoding/storable-key.js";

export type { KeyValueOp, KeyValueStore, PutOptions } from "../contracts/key-value-store.js";

/**
 * The absolute expiry time for a TTL, or undefined when there is none. Throws `validation` for a
 * TTL that is not a positive finite number.
 */
export function expiryFor(ttlMs: number | undefined, now: number): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (typeof ttlMs !== "number" || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw validationError(`ttlMs must be a positive finite number of milliseconds, got ${String(ttlMs)}`, {
      field: "ttlMs",
    });
  }
  return now + ttlMs;
}

/** Validate the shape of batch operations before anything is applied. */
export function validateBatch(ops: readonly KeyValueOp[]): void {
  if (!Array.isArray(ops)) throw validationError("batch(ops) needs an array of operations", { field: "ops" });
  ops.forEach((op, i) => {
    if (op === null || typeof op !== "object" || (op.op !== "put" && op.op !== "delete")) {
      throw validationError(`batch operation ${i} must be { op: "put" | "delete", namespace, key }`, {
        field: `ops[${i}]`,
      });
    }
    if (typeof op.namespace !== "string" || typeof op.key !== "string") {
      throw validationError(`batch operation ${i} needs string namespace and key`, { field: `ops[${i}]` });
    }
    validateKeyText(op.namespace, op.key);
  });
}

/**
 * Refuse a namespace or key that no store can keep losslessly (not well-formed Unicode, or NUL):
 * every backend stores them as UTF-8, where two such keys would share one record.
 */
export function validateKeyText(namespace: string, key?: string): void {
  assertStorableKey(namespace, "namespace");
  if (key !== undefined) assertStorableKey(key, "key");
}

interface Entry {
  json: string;
  expiresAt?: number;
}

/**
 * An in-memory KeyValueStore (tests, ephemeral runs). Values are serialized on the way in, so
 * they are deep-copied and must be JSON. `batch` is atomic: every operation is validated (and
 * every value serialized) before the first one is applied. Expired entries are dropped lazily.
 */
export class InMemoryKeyValueStore implements KeyValueStore {
  private readonly data = new Map<string, Map<string, Entry>>();
  private readonly now: () => number;

  /** @param options.now clock for TTLs (default `Date.now`). */
  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    validateKeyText(namespace, key);
    const entry = this.live(namespace, key);
    return entry === undefined ? undefined : (JSON.parse(entry.json) as JsonValue);
  }

  async put(namespace: string, key: string, value: JsonValue, options: PutOptions = {}): Promise<void> {
    this.apply([this.prepare({ op: "put", namespace, key, value, ...options })]);
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    validateKeyText(namespace, key);
    const existed = this.live(namespace, key) !== undefined;
    this.data.get(namespace)?.delete(key);
    return existed;
  }

  async take(namespace: string, key: string): Promise<JsonValue | undefined> {
    validateKeyText(namespace, key);
    const entry = this.live(namespace, key);
    if (entry === undefined) return undefined;
    this.data.get(namespace)?.delete(key);
    return JSON.parse(entry.json) as JsonValue;
  }

  async compareAndSet(
    namespace: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue | undefined,
  ): Promise<boolean> {
    validateKeyText(namespace, key);
    const prepared =
      next === undefined ? undefined : this.prepare({ op: "put", namespace, key, value: next });
    const current = this.live(namespace, key);
    if (!sameJson(current?.json, expected)) return false;
    if (prepared === undefined) this.data.get(namespace)?.delete(key);
    else this.apply([prepared]);
    return true;
  }

  async list(namespace: string): Promise<string[]> {
    validateKeyText(namespace);
    const ns = this.data.get(namespace);
    if (ns === undefined) return [];
    const keys: string[] = [];
    for (const key of ns.keys()) if (this.live(namespace, key) !== undefined) keys.push(key);
    return keys.sort();
  }

  async batch(ops: readonly KeyValueOp[]): Promise<void> {
    validateBatch(ops);
    this.apply(ops.map((op) => this.prepare(op)));
  }

  private prepare(op: KeyValueOp): { op: KeyValueOp; entry?: Entry } {
    validateKeyText(op.namespace, op.key);
    if (op.op === "delete") return { op };
    const json = JSON.stringify(op.value);
    if (json === undefined) {
      throw validationError(`value for key "${op.key}" is not JSON data`, { field: "value" });
    }
    const expiresAt = expiryFor(op.ttlMs, this.now());
    return { op, entry: expiresAt === undefined ? { json } : { json, expiresAt } };
  }

  private apply(prepared: { op: KeyValueOp; entry?: Entry }[]): void {
    for (const { op, entry } of prepared) {
      let ns = this.data.get(op.namespace);
      if (entry === undefined) {
        ns?.delete(op.key);
        continue;
      }
      if (ns === undefined) {
        ns = new Map();
        this.data.set(op.namespace, ns);
      }
      ns.set(op.key, entry);
    }
  }

  private live(namespace: string, key: string): Entry | undefined {
    const ns = this.data.get(namespace);
    const entry = ns?.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      ns?.delete(key);
      return undefined;
    }
    return entry;
  }
}

/**
 * Whether the stored JSON text `stored` (undefined: no live entry) holds `expected` (undefined:
 * nothing). Values read back from a store re-serialize to the same text, so this is the
 * compare of `compareAndSet`.
 */
export function sameJson(stored: string | undefined, expected: JsonValue | undefined): boolean {
  if (stored === undefined || expected === undefined) return stored === undefined && expected === undefined;
  return stored === JSON.stringify(expected);
}
