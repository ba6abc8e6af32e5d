import type { JsonObject } from "@tinyagents/inference";
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

/** An in-memory NamespacedStore (tests, single process). Search scans every item. */
export class InMemoryNamespacedStore implements NamespacedStore {
  private readonly items = new Map<string, StoreItem>();
  private readonly now: () => number;

  /** @param options.now clock for `createdAt`/`updatedAt` (default `Date.now`). */
  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
  }

  async put(namespace: Namespace, key: string, value: JsonObject): Promise<void> {
    validateNamespace(namespace);
    validateItemKey(key);
    validateItemValue(key, value);
    const id = itemId(namespace, key);
    const now = this.now();
    const createdAt = this.items.get(id)?.createdAt ?? now;
    this.items.set(id, {
      namespace: [...namespace],
      key,
      value: structuredClone(value),
      createdAt,
      updatedAt: now,
    });
  }

  async get(namespace: Namespace, key: string): Promise<StoreItem | undefined> {
    validateNamespace(namespace);
    validateItemKey(key);
    const item = this.items.get(itemId(namespace, key));
    return item === undefined ? undefined : structuredClone(item);
  }

  async delete(namespace: Namespace, key: string): Promise<boolean> {
    validateNamespace(namespace);
    validateItemKey(key);
    return this.items.delete(itemId(namespace, key));
  }

  async search(namespacePrefix: Namespace, options: SearchOptions = {}): Promise<StoreItem[]> {
    validateNamespace(namespacePrefix, true);
    const { filter, limit, offset } = searchWindow(options);
    const hits = [...this.items.values()].filter(
      (item) =>
        hasPrefix(item.namespace, namespacePrefix) &&
        (filter === undefined || matchesFilter(item.value, filter)),
    );
    return hits
      .sort(compareItems)
      .slice(offset, offset + limit)
      .map((item) => structuredClone(item));
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    return selectNamespaces(
      [...this.items.values()].map((item) => item.namespace),
      options,
    );
  }
}

function itemId(namespace: Namespace, key: string): string {
  return JSON.stringify([namespace, key]);
}
