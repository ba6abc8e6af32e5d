/**
 * `@tinyagents/harness/store`: the stores' contracts and helpers beyond the common stores the root
 * exports: namespaced stores over a key-value store, store names and key validation, filters, the
 * store registry.
 */

export type { RunStores } from "../contracts/run-stores.js";
export { assertStorableKey, unstorableReason } from "../encoding/storable-key.js";
export {
  type AppendGroup,
  type AppendLog,
  type AppendLogEntry,
  InMemoryAppendLog,
  serializeEntry,
  validateRead,
} from "./append-log.js";
export { InMemoryNamespacedStore } from "./in-memory-namespaced-store.js";
export {
  KeyValueNamespacedStore,
  type KeyValueNamespacedStoreOptions,
} from "./key-value-namespaced-store.js";
export {
  expiryFor,
  InMemoryKeyValueStore,
  type KeyValueOp,
  type KeyValueStore,
  type PutOptions,
  sameJson,
  validateBatch,
  validateKeyText,
} from "./key-value-store.js";
export { KeyedMutex } from "./keyed-mutex.js";
export type {
  ListNamespacesOptions,
  Namespace,
  NamespacedStore,
  SearchOptions,
  StoreItem,
} from "./namespaced-store.js";
export type { FilterOperators, StoreFilter } from "./store-filter.js";
export { decodeStoreName, encodeStoreName, validateStoreName } from "./store-names.js";
export { StoreRegistry } from "./store-registry.js";
export type { StoreWarning } from "./store-warning.js";
