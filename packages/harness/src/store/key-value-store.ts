import type { JsonValue } from "@tinyagents/inference";

/**
 * A namespaced key-value store. The trait boundary for external stores; values are JSON data.
 * Durable implementations (file, SQLite) live in the persistence module.
 */
export interface KeyValueStore {
  get(namespace: string, key: string): Promise<JsonValue | undefined>;
  put(namespace: string, key: string, value: JsonValue): Promise<void>;
  delete(namespace: string, key: string): Promise<boolean>;
  /** Keys in a namespace, sorted. */
  list(namespace: string): Promise<string[]>;
}

/** An in-memory KeyValueStore (tests, ephemeral runs). Values are deep-copied in and out. */
export class InMemoryKeyValueStore implements KeyValueStore {
  private readonly data = new Map<string, Map<string, string>>();

  async get(namespace: string, key: string): Promise<JsonValue | undefined> {
    const raw = this.data.get(namespace)?.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as JsonValue);
  }

  async put(namespace: string, key: string, value: JsonValue): Promise<void> {
    let ns = this.data.get(namespace);
    if (ns === undefined) {
      ns = new Map();
      this.data.set(namespace, ns);
    }
    ns.set(key, JSON.stringify(value));
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    return this.data.get(namespace)?.delete(key) ?? false;
  }

  async list(namespace: string): Promise<string[]> {
    return [...(this.data.get(namespace)?.keys() ?? [])].sort();
  }
}
