import type { JsonObject, JsonValue } from "@tinyagents/inference";

/** Comparison operators of a {@link StoreFilter} condition. */
export interface FilterOperators {
  $eq?: JsonValue;
  $ne?: JsonValue;
  $gt?: number | string;
  $gte?: number | string;
  $lt?: number | string;
  $lte?: number | string;
  $in?: JsonValue[];
}

/**
 * A filter over an item's value: every field must match (AND). A field is a property name or a
 * dotted path (`"profile.age"`). A condition is either a plain JSON value (deep equality) or an
 * object of {@link FilterOperators}. Range operators compare numbers with numbers and strings
 * with strings; a missing field or a type mismatch never matches (except `$ne`).
 */
export type StoreFilter = Record<string, JsonValue | FilterOperators>;
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
