import { TinyAgentsError } from "@tinyagents/inference";
import { InMemoryKeyValueStore, type KeyValueStore } from "./key-value-store.js";

/** A default store plus named stores, carried on the RunContext. */
export class StoreRegistry {
  readonly default: KeyValueStore;
  private readonly named = new Map<string, KeyValueStore>();

  constructor(defaultStore: KeyValueStore = new InMemoryKeyValueStore()) {
    this.default = defaultStore;
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
