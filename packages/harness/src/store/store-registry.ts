import { TinyAgentsError } from "@tinyagents/inference";
import type { RunStores } from "../contracts/run-stores.js";
import { InMemoryNamespacedStore } from "./in-memory-namespaced-store.js";
import { InMemoryKeyValueStore, type KeyValueStore } from "./key-value-store.js";
import type { NamespacedStore } from "./namespaced-store.js";

/**
 * A default store plus named stores, carried on the RunContext, and the long-term
 * (cross-thread) namespaced store that tools and middleware reach as `ctx.run.stores.longTerm`.
 */
export class StoreRegistry implements RunStores {
  // Created on first use: every run without configured stores gets a registry, most never touch it.
  private defaultStore: KeyValueStore | undefined;
  private longTermStore: NamespacedStore | undefined;
  private namedStores: Map<string, KeyValueStore> | undefined;

  constructor(defaultStore?: KeyValueStore, options: { longTerm?: NamespacedStore } = {}) {
    this.defaultStore = defaultStore;
    this.longTermStore = options.longTerm;
  }

  /** The default key-value store (in memory unless one was given). */
  get default(): KeyValueStore {
    this.defaultStore ??= new InMemoryKeyValueStore();
    return this.defaultStore;
  }

  private get named(): Map<string, KeyValueStore> {
    this.namedStores ??= new Map();
    return this.namedStores;
  }

  /** Long-term application memory (default: an in-memory store, created on first use). */
  get longTerm(): NamespacedStore {
    this.longTermStore ??= new InMemoryNamespacedStore();
    return this.longTermStore;
  }

  /** Register (or replace) a named store. */
  register(name: string, store: KeyValueStore): this {
    this.named.set(name, store);
    return this;
  }

  /** A named store; throws `storage` naming the registered stores when it is missing. */
  get(name: string): KeyValueStore {
    const store = this.named.get(name);
    if (store === undefined) {
      const known = [...this.named.keys()].sort().join(", ") || "(none)";
      throw new TinyAgentsError("storage", `no store named "${name}" is registered; registered: ${known}`, {
        details: { name },
      });
    }
    return store;
  }

  names(): string[] {
    return [...this.named.keys()].sort();
  }
}
