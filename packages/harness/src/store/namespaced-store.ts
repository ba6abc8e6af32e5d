import { validationError } from "@tinyagents/inference";
import type {
  ListNamespacesOptions,
  Namespace,
  SearchOptions,
  StoreItem,
} from "../contracts/namespaced-store.js";
import { type StoreFilter, validateFilter } from "./store-filter.js";

export type {
  ListNamespacesOptions,
  Namespace,
  NamespacedStore,
  SearchOptions,
  StoreItem,
} from "../contracts/namespaced-store.js";

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
