import type { KeyValueStore } from "./key-value-store.js";
import type { NamespacedStore } from "./namespaced-store.js";

/**
 * The stores a run reaches as `ctx.run.stores`: a default key-value store, named ones, and the
 * long-term namespaced store. `StoreRegistry` implements it.
 */
export interface RunStores {
  /** The default key-value store. */
  readonly default: KeyValueStore;
  /** Long-term, cross-thread application memory. */
  readonly longTerm: NamespacedStore;
  /** Register (or replace) a named store. */
  register(name: string, store: KeyValueStore): this;
  /** A named store; throws `storage` naming the registered stores when it is missing. */
  get(name: string): KeyValueStore;
  /** The registered names, sorted. */
  names(): string[];
}
