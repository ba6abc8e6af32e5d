import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileKeyValueStore } from "./file-key-value-store.js";
import { encodeStoreName } from "./store-names.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-fkv-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("FileKeyValueStore", () => {
  it("stores JSON files under namespace directories", async () => {
    const store = new FileKeyValueStore(dir);
    await store.put("users", "u1", { name: "Ada" });
    await store.put("users", "u0", [1, "two", null]);
    expect(await store.get("users", "u1")).toEqual({ name: "Ada" });
    expect(await store.list("users")).toEqual(["u0", "u1"]);
    expect(readdirSync(join(dir, "users")).sort()).toEqual(["u0.json", "u1.json"]);
    expect(await store.delete("users", "u1")).toBe(true);
    expect(await store.delete("users", "u1")).toBe(false);
    expect(await store.get("users", "u1")).toBeUndefined();
    expect(await store.list("nobody")).toEqual([]);
  });

  it("writes atomically: no temp file is left and a rewrite replaces the whole value", async () => {
    const store = new FileKeyValueStore(dir, { fsync: true });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.put("ns", "k", { i, pad: "x".repeat(i * 100) })),
    );
    const value = (await store.get("ns", "k")) as { i: number; pad: string };
    expect(value.pad).toBe("x".repeat(value.i * 100));
    expect(readdirSync(join(dir, "ns"))).toEqual(["k.json"]);
  });

  it.each([
    ["a/b", "path separator"],
    ["a\\b", "path separator"],
    ["..", "dot"],
    [".hidden", "dot"],
    ["nul\u0000byte", "control"],
    ["", "empty"],
    ["x".repeat(201), "longer"],
  ])("rejects the unsafe name %j with a validation error (%s)", async (name) => {
    const store = new FileKeyValueStore(dir);
    for (const call of [
      () => store.put(name, "k", 1),
      () => store.put("ns", name, 1),
      () => store.get("ns", name),
    ]) {
      await expect(call()).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "validation"));
    }
  });

  it("accepts any id once encoded", async () => {
    const store = new FileKeyValueStore(dir);
    const id = "../thread/42:é";
    await store.put("ns", encodeStoreName(id), 1);
    expect(await store.get("ns", encodeStoreName(id))).toBe(1);
    expect(await store.list("ns")).toEqual([encodeStoreName(id)]);
  });

  it("honours TTLs and batches", async () => {
    let now = 0;
    const store = new FileKeyValueStore(dir, { now: () => now });
    await store.batch([
      { op: "put", namespace: "ns", key: "a", value: 1, ttlMs: 5 },
      { op: "put", namespace: "ns", key: "b", value: 2 },
      { op: "delete", namespace: "ns", key: "missing" },
    ]);
    expect(await store.list("ns")).toEqual(["a", "b"]);
    now = 5;
    expect(await store.get("ns", "a")).toBeUndefined();
    expect(await store.list("ns")).toEqual(["b"]);
    // A batch with a bad name applies nothing.
    await expect(
      store.batch([
        { op: "put", namespace: "ns", key: "c", value: 3 },
        { op: "put", namespace: "ns", key: "../d", value: 4 },
      ]),
    ).rejects.toThrow(/not a safe store name/);
    expect(await store.get("ns", "c")).toBeUndefined();
  });

  it("reports a corrupt value file as a storage error naming the file", async () => {
    const store = new FileKeyValueStore(dir);
    await store.put("ns", "k", 1);
    writeFileSync(join(dir, "ns", "k.json"), "{not json");
    await expect(store.get("ns", "k")).rejects.toSatisfy(
      (e) => TinyAgentsError.isInstance(e, "storage") && e.message.includes("k.json"),
    );
  });
});
