import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterAll, describe, expect, it } from "vitest";
import { FileKeyValueStore } from "./file-key-value-store.js";
import { InMemoryNamespacedStore } from "./in-memory-namespaced-store.js";
import { KeyValueNamespacedStore } from "./key-value-namespaced-store.js";
import { InMemoryKeyValueStore } from "./key-value-store.js";
import type { NamespacedStore, SearchOptions } from "./namespaced-store.js";
import type { StoreFilter } from "./store-filter.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const makers: [string, (now: () => number) => NamespacedStore][] = [
  ["in-memory", (now) => new InMemoryNamespacedStore({ now })],
  [
    "over an in-memory KeyValueStore",
    (now) => new KeyValueNamespacedStore(new InMemoryKeyValueStore(), { now }),
  ],
  [
    "over a FileKeyValueStore",
    (now) => {
      const dir = mkdtempSync(join(tmpdir(), "tinyagents-ns-"));
      dirs.push(dir);
      return new KeyValueNamespacedStore(new FileKeyValueStore(dir), { now });
    },
  ],
];

describe.each(makers)("NamespacedStore %s", (_name, make) => {
  const seed = async () => {
    let t = 100;
    const store = make(() => t++);
    await store.put(["users", "ada", "memories"], "m1", {
      kind: "fact",
      text: "likes tea",
      score: 3,
      tags: ["drink"],
    });
    await store.put(["users", "ada", "memories"], "m2", {
      kind: "pref",
      text: "uses vim",
      score: 7,
      meta: { lang: "en" },
    });
    await store.put(["users", "bob", "memories"], "m1", { kind: "fact", text: "lives in Oslo", score: 5 });
    await store.put(["users", "bob/../x"], "odd", { kind: "fact", score: 1 });
    await store.put(["orgs", "acme"], "o1", { kind: "org", score: 9 });
    return store;
  };

  it("puts, gets (with timestamps) and deletes items", async () => {
    const store = await seed();
    const item = await store.get(["users", "ada", "memories"], "m1");
    expect(item).toMatchObject({
      namespace: ["users", "ada", "memories"],
      key: "m1",
      createdAt: 100,
      updatedAt: 100,
    });
    await store.put(["users", "ada", "memories"], "m1", { kind: "fact", text: "likes green tea", score: 4 });
    const updated = await store.get(["users", "ada", "memories"], "m1");
    expect(updated?.createdAt).toBe(100);
    expect(updated?.updatedAt).toBeGreaterThan(100);
    expect(updated?.value.text).toBe("likes green tea");
    expect(await store.delete(["users", "ada", "memories"], "m1")).toBe(true);
    expect(await store.delete(["users", "ada", "memories"], "m1")).toBe(false);
    expect(await store.get(["users", "ada", "memories"], "m1")).toBeUndefined();
  });

  it("searches under a prefix with field filters, ordered by namespace then key", async () => {
    const store = await seed();
    const keys = async (prefix: string[], filter?: StoreFilter, extra: SearchOptions = {}) =>
      (await store.search(prefix, { ...(filter ? { filter } : {}), limit: 100, ...extra })).map(
        (i) => `${i.namespace.join("/")}#${i.key}`,
      );
    expect(await keys(["users"])).toEqual([
      "users/ada/memories#m1",
      "users/ada/memories#m2",
      "users/bob/memories#m1",
      "users/bob/../x#odd",
    ]);
    expect(await keys([], { kind: "fact" })).toEqual([
      "users/ada/memories#m1",
      "users/bob/memories#m1",
      "users/bob/../x#odd",
    ]);
    expect(await keys([], { score: { $gt: 3, $lte: 7 } })).toEqual([
      "users/ada/memories#m2",
      "users/bob/memories#m1",
    ]);
    expect(await keys([], { score: { $gte: 9 } })).toEqual(["orgs/acme#o1"]);
    expect(await keys([], { score: { $lt: 3 } })).toEqual(["users/bob/../x#odd"]);
    expect(await keys(["users"], { kind: { $ne: "fact" } })).toEqual(["users/ada/memories#m2"]);
    expect(await keys([], { kind: { $in: ["org", "pref"] } })).toEqual([
      "orgs/acme#o1",
      "users/ada/memories#m2",
    ]);
    expect(await keys([], { "meta.lang": "en" })).toEqual(["users/ada/memories#m2"]);
    expect(await keys([], { tags: ["drink"] })).toEqual(["users/ada/memories#m1"]);
    expect(await keys([], { text: { $gt: 5 } })).toEqual([]); // type mismatch never matches
    expect(await keys(["users"], undefined, { limit: 2, offset: 1 })).toEqual([
      "users/ada/memories#m2",
      "users/bob/memories#m1",
    ]);
    expect((await store.search(["users"])).length).toBe(4); // default limit 10
  });

  it("lists namespaces with a prefix, depth and paging", async () => {
    const store = await seed();
    expect(await store.listNamespaces()).toEqual([
      ["orgs", "acme"],
      ["users", "ada", "memories"],
      ["users", "bob", "memories"],
      ["users", "bob/../x"],
    ]);
    expect(await store.listNamespaces({ prefix: ["users"], maxDepth: 2 })).toEqual([
      ["users", "ada"],
      ["users", "bob"],
      ["users", "bob/../x"],
    ]);
    expect(await store.listNamespaces({ limit: 1, offset: 1 })).toEqual([["users", "ada", "memories"]]);
    await store.delete(["orgs", "acme"], "o1");
    expect(await store.listNamespaces({ prefix: ["orgs"] })).toEqual([]);
  });

  it("rejects bad namespaces, keys, values and filters with validation errors", async () => {
    const store = make(() => 0);
    const bad = [
      () => store.put([], "k", {}),
      () => store.put(["ok", ""], "k", {}),
      () => store.put(["ok"], "", {}),
      () => store.put(["ok"], "k", [] as never),
      () => store.search(["ok"], { filter: { x: { $regex: "a" } as never } }),
      () => store.search(["ok"], { filter: { x: { $in: 3 } as never } }),
      () => store.search(["ok"], { limit: -1 }),
    ];
    for (const call of bad)
      await expect(call()).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "validation"));
  });
});

describe("StoreRegistry.longTerm", () => {
  it("defaults to an in-memory namespaced store and takes a configured one", async () => {
    const { StoreRegistry } = await import("./store-registry.js");
    const registry = new StoreRegistry();
    expect(registry.longTerm).toBe(registry.longTerm);
    await registry.longTerm.put(["app"], "k", { v: 1 });
    expect((await registry.longTerm.get(["app"], "k"))?.value).toEqual({ v: 1 });
    const custom = new KeyValueNamespacedStore(new InMemoryKeyValueStore());
    expect(new StoreRegistry(undefined, { longTerm: custom }).longTerm).toBe(custom);
  });
});
