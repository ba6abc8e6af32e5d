import { type JsonObject, validationError } from "@tinyagents/inference";
import { type StoreFilter, validateFilter } from "./store-filter.js";

/** A hierarchical namespace: `["users", "u-42", "memories"]`. */
export type Namespace = readonly string[];

/** One stored document of a {@link NamespacedStore}. */
export interface StoreItem {
  namespace: string[];
  key: string;
  value: JsonObject;
  /** Epoch ms of the first put. */
  createdAt: number;
  /** Epoch ms of the latest put. */
  updatedAt: number;
}

/** Options of {@link NamespacedStore.search}. */
export interface SearchOptions {
  /** Conditions on the item's value (see {@link StoreFilter}); omitted = every item. */
  filter?: StoreFilter;
  /** Maximum items returned (default 10). */
  limit?: number;
  /** Items skipped before the first returned (default 0). */
  offset?: number;
}

/** Options of {@link NamespacedStore.listNamespaces}. */
export interface ListNamespacesOptions {
  /** Only namespaces under this prefix. */
  prefix?: Namespace;
  /** Truncate namespaces to this many segments (duplicates removed). */
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

/**
 * Long-term, cross-thread application memory: JSON documents under hierarchical namespaces,
 * searchable by a field filter. Results are ordered by namespace, then key, so paging with
 * `offset`/`limit` is stable. Values are copied in and out.
 */
export interface NamespacedStore {
  put(namespace: Namespace, key: string, value: JsonObject): Promise<void>;
  get(namespace: Namespace, key: string): Promise<StoreItem | undefined>;
  /** True when an item was removed. */
  delete(namespace: Namespace, key: string): Promise<boolean>;
  /** Items whose namespace starts with `namespacePrefix` (`[]` = everything) and match the filter. */
  search(namespacePrefix: Namespace, options?: SearchOptions): Promise<StoreItem[]>;
  /** Namespaces that hold at least one item, sorted. */
  listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;
}

/** Validate a namespace (non-empty array of non-empty strings). */
export function validateNamespace(namespace: unknown, allowEmpty = false): asserts namespace is Namespace {
  const ok =
    Array.isArray(namespace) &&
    (allowEmpty || namespace.length > 0) &&
    namespace.every((segment) => typeof segment === "string" && segment !== "");
  if (!ok) {
    throw validationError(
      `namespace must be ${allowEmpty ? "an" : "a non-empty"} array of non-empty strings, got ${JSON.stringify(namespace)}`,
      { field: "namespace" },
    );
  }
}

/** Validate an item key (a non-empty string). */
export function validateItemKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key === "") {
    throw validationError("item key must be a non-empty string", { field: "key" });
  }
}

/** Validate an item value (a JSON object). */
export function validateItemValue(key: string, value: unknown): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw validationError(`item "${key}" value must be a JSON object`, { field: "value" });
  }
}

/** Validated search paging and filter. */
export function searchWindow(options: SearchOptions): {
  filter?: StoreFilter;
  limit: number;
  offset: number;
} {
  const limit = options.limit ?? 10;
  const offset = options.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 0) {
    throw validationError(`search limit must be a non-negative integer, got ${String(limit)}`, {
      field: "limit",
    });
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw validationError(`search offset must be a non-negative integer, got ${String(offset)}`, {
      field: "offset",
    });
  }
  if (options.filter !== undefined) validateFilter(options.filter);
  return options.filter === undefined ? { limit, offset } : { filter: options.filter, limit, offset };
}

/** True when `namespace` starts with `prefix`. */
export function hasPrefix(namespace: Namespace, prefix: Namespace): boolean {
  return prefix.length <= namespace.length && prefix.every((segment, i) => namespace[i] === segment);
}

/** Order items by namespace then key (stable paging). */
export function compareItems(a: StoreItem, b: StoreItem): number {
  const na = a.namespace.join("\u0000");
  const nb = b.namespace.join("\u0000");
  if (na !== nb) return na < nb ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Apply `prefix`, `maxDepth`, ordering and paging to a list of namespaces. */
export function selectNamespaces(all: Namespace[], options: ListNamespacesOptions): string[][] {
  const prefix = options.prefix ?? [];
  validateNamespace(prefix, true);
  const seen = new Map<string, string[]>();
  for (const ns of all) {
    if (!hasPrefix(ns, prefix)) continue;
    const cut = options.maxDepth === undefined ? [...ns] : ns.slice(0, options.maxDepth);
    seen.set(cut.join("\u0000"), cut);
  }
  const sorted = [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ns]) => ns);
  const offset = options.offset ?? 0;
  return sorted.slice(offset, options.limit === undefined ? undefined : offset + options.limit);
}
