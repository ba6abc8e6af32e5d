import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsageTotals, TinyAgentsError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyCost } from "../cost/cost.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import type { SqliteDriverName } from "./sqlite-driver.js";
import { availableSqliteDrivers } from "./sqlite-drivers.fixture.js";
import { SqliteStore } from "./sqlite-store.js";

let dir: string;
const stores: SqliteStore[] = [];
let now = 1_000;
let driver: SqliteDriverName;
const open = (options = {}) => {
  const store = SqliteStore.open(join(dir, "db.sqlite"), { now: () => now, driver, ...options });
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-sqlite-"));
  now = 1_000;
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

const status = (runId: string, fields: Partial<HarnessRunStatus> = {}): HarnessRunStatus => ({
  runId,
  rootRunId: runId,
  component: "agent",
  status: "running",
  phase: "model",
  modelCalls: 0,
  toolCalls: 0,
  activeToolCalls: [],
  usage: emptyUsageTotals(),
  cost: emptyCost(),
  startedAt: 0,
  updatedAt: 0,
  ...fields,
});

// The whole suite runs once per SQLite driver this runtime has: better-sqlite3 on Node 20,
// node:sqlite (and better-sqlite3, rebuilt for it) on the CI's Node 22 pass, bun:sqlite under Bun.
describe.each(availableSqliteDrivers())("SqliteStore on %s", (name) => {
  beforeEach(() => {
    driver = name;
  });

  describe("SqliteStore", () => {
    it("opens one WAL-mode file with every table, shared by several connections", async () => {
      const a = open();
      const b = open();
      await a.keyValue.put("ns", "k", { v: 1 });
      expect(await b.keyValue.get("ns", "k")).toEqual({ v: 1 });
      expect(a.isOpen).toBe(true);
      a.close();
      a.close();
      expect(a.isOpen).toBe(false);
      expect(SqliteStore.open(":memory:").isOpen).toBe(true);
    });

    it("key-value: TTLs, listing, deleting and all-or-nothing batches", async () => {
      const { keyValue: kv } = open();
      await kv.put("ns", "b", 2, { ttlMs: 10 });
      await kv.put("ns", "a", [1]);
      expect(await kv.list("ns")).toEqual(["a", "b"]);
      now += 10;
      expect(await kv.get("ns", "b")).toBeUndefined();
      expect(await kv.list("ns")).toEqual(["a"]);
      expect(kv.purgeExpired()).toBe(1);
      await kv.put("ns", "b", 3, { ttlMs: 1 });
      now += 1;
      expect(await kv.delete("ns", "b")).toBe(false); // expired: not live, but the row is removed
      expect(kv.purgeExpired()).toBe(0);
      expect(await kv.delete("ns", "a")).toBe(true);
      await kv.batch([
        { op: "put", namespace: "ns", key: "x", value: 1 },
        { op: "put", namespace: "ns", key: "x", value: 2 },
        { op: "put", namespace: "n2", key: "y", value: "y" },
      ]);
      expect(await kv.get("ns", "x")).toBe(2);
      await expect(
        kv.batch([
          { op: "delete", namespace: "ns", key: "x" },
          { op: "put", namespace: "ns", key: "z", value: 1, ttlMs: -5 },
        ]),
      ).rejects.toSatisfy((e) => TinyAgentsError.isInstance(e, "validation"));
      expect(await kv.get("ns", "x")).toBe(2);
    });

    it("append log: dense monotonic offsets per stream, windows, lengths, streams", async () => {
      const { appendLog: log } = open();
      expect(await log.append("s", "a")).toBe(0);
      expect(await log.appendMany("s", ["b", "c"])).toEqual([1, 2]);
      expect(await log.append("t", { t: true })).toBe(0);
      expect(await log.readFrom("s", 1, 5)).toEqual([
        { offset: 1, value: "b" },
        { offset: 2, value: "c" },
      ]);
      expect(await log.length("s")).toBe(3);
      expect(await log.length("none")).toBe(0);
      expect(await log.listStreams()).toEqual(["s", "t"]);
      // A second connection continues the same sequence.
      expect(await open().appendLog.append("s", "d")).toBe(3);
    });

    it("status store: latest record per run, queries, no regression, evicts only finished runs", async () => {
      const store = open({ maxFinishedRuns: 2 }).statusStore;
      await store.save(status("r1", { threadId: "t", startedAt: 1, updatedAt: 1 }));
      await store.save(
        status("r2", { threadId: "t", rootRunId: "r1", parentRunId: "r1", startedAt: 2, updatedAt: 2 }),
      );
      await store.save(status("r3", { startedAt: 3, updatedAt: 3 }));
      expect((await store.list({ threadId: "t" })).map((s) => s.runId)).toEqual(["r1", "r2"]);
      expect((await store.list({ rootRunId: "r1" })).map((s) => s.runId)).toEqual(["r1", "r2"]);
      expect((await store.list({ active: true, limit: 2 })).map((s) => s.runId)).toEqual(["r1", "r2"]);
      await store.save(
        status("r1", { threadId: "t", status: "completed", startedAt: 1, updatedAt: 5, endedAt: 5 }),
      );
      // A stale or backwards save loses.
      await store.save(status("r1", { threadId: "t", status: "running", startedAt: 1, updatedAt: 9 }));
      await store.save(
        status("r2", { threadId: "t", rootRunId: "r1", status: "running", startedAt: 2, updatedAt: 1 }),
      );
      expect((await store.get("r1"))?.status).toBe("completed");
      expect((await store.get("r2"))?.updatedAt).toBe(2);
      expect((await store.list({ active: true })).map((s) => s.runId)).toEqual(["r2", "r3"]);
      for (const id of ["r4", "r5"]) {
        await store.save(status(id, { status: "failed", startedAt: 10, updatedAt: 10, endedAt: 10 }));
      }
      // Three finished, two allowed: the first finished (r1) goes; the active r2 and r3 stay.
      expect((await store.list()).map((s) => s.runId)).toEqual(["r2", "r3", "r4", "r5"]);
      expect(await store.delete("r5")).toBe(true);
      expect(await store.delete("r5")).toBe(false);
    });

    it("status store: keeps exactly maxFinishedRuns finished runs over many saves (counting amortized)", async () => {
      const store = open({ maxFinishedRuns: 10 }).statusStore;
      for (let i = 0; i < 300; i++) {
        const id = `f${String(i).padStart(3, "0")}`;
        await store.save(status(id, { startedAt: i, updatedAt: i }));
        await store.save(status(id, { status: "completed", startedAt: i, updatedAt: i + 1, endedAt: i + 1 }));
        // Re-saving a finished run (a newer record) is not a new finished row.
        await store.save(status(id, { status: "completed", startedAt: i, updatedAt: i + 2, endedAt: i + 1 }));
        if (i % 37 === 0) expect((await store.list({ active: false })).length).toBe(Math.min(i + 1, 10));
      }
      const kept = (await store.list({ active: false })).map((s) => s.runId);
      expect(kept).toEqual(Array.from({ length: 10 }, (_, k) => `f${290 + k}`));
    });

    it("response cache: get, put with TTL, delete, clear, size", async () => {
      const { responseCache: cache } = open();
      await cache.put("fp-1", { text: "hi" });
      await cache.put("fp-2", "short", { ttlMs: 5 });
      expect(await cache.get("fp-1")).toEqual({ text: "hi" });
      expect(await cache.size()).toBe(2);
      now += 5;
      expect(await cache.get("fp-2")).toBeUndefined();
      expect(await cache.size()).toBe(1);
      expect(cache.purgeExpired()).toBe(1);
      expect(await cache.delete("fp-1")).toBe(true);
      await cache.put("fp-3", 3);
      await cache.clear();
      expect(await cache.size()).toBe(0);
    });

    it("reports an unusable path as a storage error", () => {
      expect(() => SqliteStore.open(join(dir, "missing", "dir", "db.sqlite"))).toThrowError(
        expect.objectContaining({ code: "storage" }),
      );
      expect(() => SqliteStore.open("")).toThrowError(expect.objectContaining({ code: "validation" }));
    });
  });
});
