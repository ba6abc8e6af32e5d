export { InMemoryKeyValueStore, type KeyValueStore } from "./key-value-store.js";
export { StoreRegistry } from "./store-registry.js";
