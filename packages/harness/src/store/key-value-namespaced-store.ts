import type { JsonObject, JsonValue } from "@tinyagents/inference";
import type { KeyValueStore } from "./key-value-store.js";
import {
  compareItems,
  hasPrefix,
  type ListNamespacesOptions,
  type Namespace,
  type NamespacedStore,
  type SearchOptions,
  type StoreItem,
  searchWindow,
  selectNamespaces,
  validateItemKey,
  validateItemValue,
  validateNamespace,
} from "./namespaced-store.js";
import { matchesFilter } from "./store-filter.js";
import { encodeStoreName } from "./store-names.js";

/** Options of a {@link KeyValueNamespacedStore}. */
export interface KeyValueNamespacedStoreOptions {
  /** Prefix of every key-value namespace this store writes (default `"ltm"`). */
  prefix?: string;
  /** Clock for `createdAt`/`updatedAt` (default `Date.now`). */
  now?: () => number;
}

/**
 * A NamespacedStore over any KeyValueStore (file, SQLite, ...), so long-term memory lives in
 * the same backend as everything else. Each namespace maps to one key-value namespace
 * (`<prefix>~<segment>~<segment>`, segments URL-encoded); an index namespace
 * (`<prefix>-index`) remembers which namespaces exist.
 *
 * `search` lists and reads every item under the prefix and filters in memory: O(items), fine
 * for application memory of modest size. Deeply nested namespaces must fit the backend's name
 * limit (200 bytes for the file store).
 */
export class KeyValueNamespacedStore implements NamespacedStore {
  private readonly store: KeyValueStore;
  private readonly prefix: string;
  private readonly indexNamespace: string;
  private readonly now: () => number;
  private readonly indexed = new Set<string>();

  constructor(store: KeyValueStore, options: KeyValueNamespacedStoreOptions = {}) {
    this.store = store;
    this.prefix = options.prefix ?? "ltm";
    this.indexNamespace = `${this.prefix}-index`;
    this.now = options.now ?? Date.now;
  }

  async put(namespace: Namespace, key: string, value: JsonObject): Promise<void> {
    validateNamespace(namespace);
    validateItemKey(key);
    validateItemValue(key, value);
    const ns = this.kvNamespace(namespace);
    if (!this.indexed.has(ns)) {
      await this.store.put(this.indexNamespace, ns, [...namespace]);
      this.indexed.add(ns);
    }
    const existing = (await this.store.get(ns, encodeStoreName(key))) as StoreItem | undefined;
    const now = this.now();
    const item: StoreItem = {
      namespace: [...namespace],
      key,
      value,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.store.put(ns, encodeStoreName(key), item as unknown as JsonValue);
  }

  async get(namespace: Namespace, key: string): Promise<StoreItem | undefined> {
    validateNamespace(namespace);
    validateItemKey(key);
    return (await this.store.get(this.kvNamespace(namespace), encodeStoreName(key))) as StoreItem | undefined;
  }

  async delete(namespace: Namespace, key: string): Promise<boolean> {
    validateNamespace(namespace);
    validateItemKey(key);
    return this.store.delete(this.kvNamespace(namespace), encodeStoreName(key));
  }

  async search(namespacePrefix: Namespace, options: SearchOptions = {}): Promise<StoreItem[]> {
    validateNamespace(namespacePrefix, true);
    const { filter, limit, offset } = searchWindow(options);
    const hits: StoreItem[] = [];
    for (const namespace of await this.namespaces()) {
      if (!hasPrefix(namespace, namespacePrefix)) continue;
      const ns = this.kvNamespace(namespace);
      for (const key of await this.store.list(ns)) {
        const item = (await this.store.get(ns, key)) as StoreItem | undefined;
        if (item !== undefined && (filter === undefined || matchesFilter(item.value, filter)))
          hits.push(item);
      }
    }
    return hits.sort(compareItems).slice(offset, offset + limit);
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const nonEmpty: Namespace[] = [];
    for (const namespace of await this.namespaces()) {
      if ((await this.store.list(this.kvNamespace(namespace))).length > 0) nonEmpty.push(namespace);
    }
    return selectNamespaces(nonEmpty, options);
  }

  private async namespaces(): Promise<string[][]> {
    const out: string[][] = [];
    for (const key of await this.store.list(this.indexNamespace)) {
      const segments = await this.store.get(this.indexNamespace, key);
      if (Array.isArray(segments)) out.push(segments as string[]);
    }
    return out;
  }

  private kvNamespace(namespace: Namespace): string {
    return `${this.prefix}~${namespace.map((s) => encodeStoreName(s).replaceAll("~", "%7E")).join("~")}`;
  }
}
