import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { InMemoryKeyValueStore } from "./key-value-store.js";

describe("InMemoryKeyValueStore", () => {
  it("keeps the four basic operations and copies values in and out", async () => {
    const store = new InMemoryKeyValueStore();
    const value = { a: [1, 2] };
    await store.put("ns", "k", value);
    value.a.push(3);
    const read = (await store.get("ns", "k")) as { a: number[] };
    expect(read).toEqual({ a: [1, 2] });
    read.a.push(9);
    expect(await store.get("ns", "k")).toEqual({ a: [1, 2] });
    await store.put("ns", "b", 1);
    expect(await store.list("ns")).toEqual(["b", "k"]);
    expect(await store.delete("ns", "k")).toBe(true);
    expect(await store.delete("ns", "k")).toBe(false);
    expect(await store.list("other")).toEqual([]);
  });

  it("hides entries whose TTL elapsed, from get, list and delete", async () => {
    let now = 1000;
    const store = new InMemoryKeyValueStore({ now: () => now });
    await store.put("ns", "short", "s", { ttlMs: 10 });
    await store.put("ns", "long", "l", { ttlMs: 1000 });
    await store.put("ns", "forever", "f");
    now = 1010;
    expect(await store.get("ns", "short")).toBeUndefined();
    expect(await store.list("ns")).toEqual(["forever", "long"]);
    expect(await store.delete("ns", "short")).toBe(false);
    now = 5000;
    expect(await store.list("ns")).toEqual(["forever"]);
  });

  it("rejects a TTL that is not a positive number", async () => {
    const store = new InMemoryKeyValueStore();
    await expect(store.put("ns", "k", 1, { ttlMs: 0 })).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "validation") && /ttlMs/.test(e.message),
    );
    await expect(store.put("ns", "k", 1, { ttlMs: Number.NaN })).rejects.toThrow(/ttlMs/);
  });

  it("applies a batch in order, and not at all when one operation is invalid", async () => {
    const store = new InMemoryKeyValueStore();
    await store.put("ns", "old", 1);
    await store.batch([
      { op: "put", namespace: "ns", key: "a", value: 1 },
      { op: "put", namespace: "ns", key: "a", value: 2 },
      { op: "delete", namespace: "ns", key: "old" },
    ]);
    expect(await store.get("ns", "a")).toBe(2);
    expect(await store.get("ns", "old")).toBeUndefined();
    await expect(
      store.batch([
        { op: "put", namespace: "ns", key: "b", value: 1 },
        { op: "put", namespace: "ns", key: "c", value: 1, ttlMs: -1 },
      ]),
    ).rejects.toThrow(/ttlMs/);
    expect(await store.list("ns")).toEqual(["a"]);
  });
});
