import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StatusQuery } from "../observability/status-store.js";
import { conformanceStatus } from "../testkit/store-conformance/status-store-conformance.js";
import type { SqliteDriverName } from "./drivers/sqlite-driver.js";
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

    // The shared store contract runs in sqlite-conformance.test.ts; here: what only SQLite has.
    it("key-value: purgeExpired counts the expired rows; deleting an expired key removes its row", async () => {
      const { keyValue: kv } = open();
      await kv.put("ns", "b", 2, { ttlMs: 10 });
      await kv.put("ns", "a", [1]);
      now += 10;
      expect(kv.purgeExpired()).toBe(1);
      await kv.put("ns", "b", 3, { ttlMs: 1 });
      now += 1;
      expect(await kv.delete("ns", "b")).toBe(false); // expired: not live, but the row is removed
      expect(kv.purgeExpired()).toBe(0);
      expect(await kv.list("ns")).toEqual(["a"]);
    });

    // A later save of a run sets only the changing columns when its thread, root and start are the
    // stored ones; a save that changes them still re-indexes the run (and stale saves still lose).
    it("status: later saves update the run in place, and re-index it when thread, root or start change", async () => {
      const { statusStore: store } = open();
      await store.save(conformanceStatus("r", { threadId: "t1", startedAt: 1 }));
      await store.save(
        conformanceStatus("r", { threadId: "t1", startedAt: 1, updatedAt: 2, phase: "tools" }),
      );
      expect((await store.get("r"))?.phase).toBe("tools");
      await store.save(
        conformanceStatus("r", { threadId: "t1", startedAt: 1, updatedAt: 1, phase: "model" }),
      );
      expect((await store.get("r"))?.phase).toBe("tools"); // older than the stored record: ignored
      await store.save(
        conformanceStatus("r", { rootRunId: "p", threadId: "t2", startedAt: 3, updatedAt: 3 }),
      );
      const ids = async (query: StatusQuery) => (await open().statusStore.list(query)).map((s) => s.runId);
      expect(await ids({ threadId: "t2" })).toEqual(["r"]);
      expect(await ids({ threadId: "t1" })).toEqual([]);
      expect(await ids({ rootRunId: "p" })).toEqual(["r"]);
      await store.save(
        conformanceStatus("r", {
          rootRunId: "p",
          threadId: "t2",
          startedAt: 3,
          updatedAt: 4,
          status: "completed",
        }),
      );
      expect(await ids({ active: true })).toEqual([]);
      expect(await ids({ active: false })).toEqual(["r"]);
      expect((await store.get("r"))?.startedAt).toBe(3);
    });

    it("reports an unusable path as a storage error", () => {
      expect(() => SqliteStore.open(join(dir, "missing", "dir", "db.sqlite"))).toThrowError(
        expect.objectContaining({ code: "storage" }),
      );
      expect(() => SqliteStore.open("")).toThrowError(expect.objectContaining({ code: "validation" }));
    });
  });

  describe("SqliteAppendLog group checks", () => {
    it("hands checkOffset the last stored value's numeric offset field, read in SQL, instead of calling check", async () => {
      const log = open().appendLog;
      const seen: (number | undefined)[] = [];
      let checks = 0;
      const group = (stream: string, value: unknown) => ({
        stream,
        values: [value as never],
        check: () => {
          checks++;
        },
        checkOffset: (last: number | undefined) => {
          seen.push(last);
        },
      });
      await log.appendGroups([group("s", { offset: 7, event: {} })]); // empty stream
      await log.appendGroups([group("s", { offset: 8, event: {} })]); // after offset 7
      await log.appendMany("t", [{ offset: true }, [1], { offset: "9" }, { offset: 2.5 }]);
      await log.appendGroups([group("t", { offset: 3 })]); // after a fractional offset
      await log.appendMany("u", [{ offset: "9" }]);
      await log.appendGroups([group("u", { offset: 3 })]); // a string is not an offset
      await log.appendMany("v", [{ offset: true }]);
      await log.appendGroups([group("v", { offset: 3 })]); // nor a boolean (json_extract gives 1)
      expect(seen).toEqual([undefined, 7, 2.5, undefined, undefined]);
      expect(checks).toBe(0);
      // The rows are written after the stored ones, whatever the check read.
      expect((await log.readFrom("t", 0, 10)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4]);
    });

    it("serializes a frozen group's values in the turn's commit: one that is not JSON fails its own write alone", async () => {
      const log = open().appendLog;
      const good = log.appendGroups([{ stream: "a", values: [{ n: 1 }], valuesFrozen: true }]);
      const bad = log.appendGroups([{ stream: "b", values: [undefined as never], valuesFrozen: true }]);
      await expect(bad).rejects.toMatchObject({ code: "validation" });
      await expect(good).resolves.toEqual([[0]]);
      expect((await log.readFrom("a", 0, 10)).map((e) => e.value)).toEqual([{ n: 1 }]);
      expect(await log.length("b")).toBe(0);
    });

    it("copies a group's values at the call unless it is valuesFrozen (a caller may change them once it returns)", async () => {
      const log = open().appendLog;
      const copied = { n: 1 };
      const frozen = { n: 1 };
      const writes = [
        log.appendGroups([{ stream: "copied", values: [copied] }]),
        log.appendGroups([{ stream: "frozen", values: [frozen], valuesFrozen: true }]),
      ];
      copied.n = 2; // before the turn's commit: the copy taken at the call is what is stored
      frozen.n = 2; // breaks the frozen promise: the log serializes at the commit
      await Promise.all(writes);
      expect((await log.readFrom("copied", 0, 1))[0]?.value).toEqual({ n: 1 });
      expect((await log.readFrom("frozen", 0, 1))[0]?.value).toEqual({ n: 2 });
    });

    it("refuses a value JSON cannot encode with a validation error, whether copied at the call or in the commit", async () => {
      const log = open().appendLog;
      const other = log.appendGroups([{ stream: "a", values: [{ n: 1 }], valuesFrozen: true }]);
      for (const valuesFrozen of [undefined, true] as const) {
        const group = {
          stream: "b",
          values: [{ n: 1n } as never],
          ...(valuesFrozen ? { valuesFrozen } : {}),
        };
        await expect(log.appendGroups([group])).rejects.toMatchObject({
          code: "validation",
          message: expect.stringContaining("not JSON data"),
        });
      }
      await expect(other).resolves.toEqual([[0]]);
      expect(await log.length("b")).toBe(0);
    });

    it("refuses the whole group commit when checkOffset throws", async () => {
      const log = open().appendLog;
      await log.appendMany("s", [{ offset: 4 }]);
      const refused = log.appendGroups([
        { stream: "a", values: [1] },
        {
          stream: "s",
          values: [{ offset: 4 }],
          checkOffset: (last) => {
            if (last !== undefined && last >= 4) throw new Error(`stored ${last}`);
          },
        },
      ]);
      await expect(refused).rejects.toThrow("stored 4");
      expect(await log.length("a")).toBe(0);
      expect(await log.length("s")).toBe(1);
    });
  });
});
