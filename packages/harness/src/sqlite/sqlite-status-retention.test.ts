import { afterEach, describe, expect, it } from "vitest";
import { databaseEvictBatch } from "../observability/finished-run-retention.js";
import { conformanceStatus } from "../testkit/store-conformance/status-store-conformance.js";
import { openSqliteDatabase, type SqliteDb, type SqliteStatement } from "./sqlite-database.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteHarnessStatusStore } from "./sqlite-status-store.js";

// Issue 37 item 11: finishing a run must not cost O(stored runs). Checked by counting the
// statements a finished save executes (not by wall time), at two table sizes.

const open: SqliteDb[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

/** A database whose statements count their executions by SQL text. */
function countingDb(): { db: SqliteDb; runs: Map<string, number> } {
  const db = openSqliteDatabase(":memory:");
  open.push(db);
  const runs = new Map<string, number>();
  const counted = (sql: string, statement: SqliteStatement): SqliteStatement =>
    new Proxy(statement, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function" || !["run", "get", "all"].includes(String(property))) return value;
        return (...args: unknown[]) => {
          runs.set(sql, (runs.get(sql) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const proxy = new Proxy(db, {
    get(target, property, receiver) {
      if (property === "prepare") return (sql: string) => counted(sql, target.prepare(sql));
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, runs };
}

const finished = (i: number) =>
  conformanceStatus(`run-${String(i).padStart(6, "0")}`, { status: "completed", updatedAt: i, endedAt: i });

/** Statements executed by `saves` finished saves on a store already holding `stored` finished runs. */
async function costOfFinishing(maxFinishedRuns: number, stored: number, saves: number) {
  const { db, runs } = countingDb();
  const store = new SqliteHarnessStatusStore(db, maxFinishedRuns);
  await store.saveMany(Array.from({ length: stored }, (_, i) => finished(i)));
  runs.clear();
  for (let i = stored; i < stored + saves; i++) await store.save(finished(i));
  const of = (pattern: RegExp) =>
    [...runs].filter(([sql]) => pattern.test(sql)).reduce((n, [, c]) => n + c, 0);
  const kept = (await store.list({})).map((status) => status.runId);
  const rows = kept.length;
  const evictSql = [...runs.keys()].find((sql) => /^DELETE FROM run_status WHERE run_id IN/.test(sql));
  return {
    counts: of(/COUNT\(\*\)/),
    evictions: of(/^DELETE FROM run_status WHERE run_id IN/),
    rows,
    kept,
    evictSql,
    db,
  };
}

describe("SQLite status store retention (issue 37 item 11)", () => {
  it("at the bound, finished saves evict in batches and almost never count, whatever the table size", async () => {
    const small = await costOfFinishing(300, 300, 600);
    const large = await costOfFinishing(3_000, 3_000, 600);
    for (const [max, cost] of [
      [300, small],
      [3_000, large],
    ] as const) {
      const batch = databaseEvictBatch(max);
      // One eviction statement per `batch` finished saves (each removes that many oldest rows)...
      expect(cost.evictions).toBe(Math.floor(600 / batch));
      // ...and a real count only every max(256, maxFinishedRuns) finished saves, or first.
      expect(cost.counts).toBeLessThanOrEqual(3);
      // The newest `max` finished runs are all kept, and fewer than a batch more.
      expect(cost.rows).toBeGreaterThanOrEqual(max);
      expect(cost.rows).toBeLessThan(max + batch);
      // (runs 0 .. max + 599 were saved, oldest first)
      expect(cost.kept.slice(-max)).toEqual(Array.from({ length: max }, (_, i) => finished(600 + i).runId));
    }
    expect([databaseEvictBatch(300), databaseEvictBatch(3_000)]).toEqual([2, 23]);
  });

  it("evicts one run at a time under 256 finished runs, and 64 at most from 8,192 on", async () => {
    expect([0, 3, 255].map(databaseEvictBatch)).toEqual([1, 1, 1]);
    expect([8_192, 10_000, 1_000_000].map(databaseEvictBatch)).toEqual([64, 64, 64]);
    const exact = await costOfFinishing(200, 200, 50);
    expect(exact.evictions).toBe(50);
    expect(exact.rows).toBe(200);
  });

  it("a group commit that rolls back does not count its finished runs twice", async () => {
    const db = openSqliteDatabase(":memory:");
    open.push(db);
    const commit = new SqliteGroupCommit(db);
    const store = new SqliteHarnessStatusStore(db, 3, commit);
    await store.save(finished(1));
    await store.save(finished(2));
    // The same turn: a finished save and a write that fails, so the batch rolls back and the
    // save reruns alone. Counted twice, the third finished run would evict the first.
    const [saved, failed] = await Promise.allSettled([
      store.save(finished(3)),
      commit.submit(() => {
        throw new Error("refused");
      }),
    ]);
    expect([saved.status, failed.status]).toEqual(["fulfilled", "rejected"]);
    expect((await store.list({})).map((s) => s.runId)).toEqual(["run-000001", "run-000002", "run-000003"]);
    await store.save(finished(4)); // over the bound now: the oldest goes
    expect((await store.list({})).map((s) => s.runId)).toEqual(["run-000002", "run-000003", "run-000004"]);
  });

  it("the store's eviction reads the oldest finished rows from the index, without sorting them all", async () => {
    const { evictSql, db } = await costOfFinishing(10, 10, 1);
    expect(evictSql).toBeDefined();
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${evictSql}`).all(1) as { detail: string }[];
    const details = plan.map((row) => row.detail);
    expect(details.some((d) => /USING (COVERING )?INDEX run_status_active/.test(d))).toBe(true);
    expect(details).not.toContain("USE TEMP B-TREE FOR ORDER BY"); // a full sort
  });

  // Issue 40: a step's save of a running run rewrites its record, not its index entries.
  it("a save that keeps the run's liveness leaves the (active, ended_at) index entry alone", async () => {
    const { db, runs } = countingDb();
    const store = new SqliteHarnessStatusStore(db, 10);
    const running = (updatedAt: number) => conformanceStatus("run-a", { status: "running", updatedAt });
    await store.save(running(1));
    runs.clear();
    await store.save(running(2));
    await store.save(running(3));
    const updates = [...runs].filter(([sql]) => sql.startsWith("UPDATE run_status"));
    expect(updates).toEqual([
      ["UPDATE run_status SET status = ?, updated_at = ?, record = ? WHERE run_id = ?", 2],
    ]);
    expect((await store.list({ active: true })).map((s) => [s.runId, s.updatedAt])).toEqual([["run-a", 3]]);
    runs.clear();
    await store.save(conformanceStatus("run-a", { status: "completed", updatedAt: 4, endedAt: 4 }));
    expect([...runs.keys()].filter((sql) => sql.startsWith("UPDATE run_status"))).toEqual([
      "UPDATE run_status SET status = ?, active = ?, updated_at = ?, ended_at = ?, record = ? WHERE run_id = ?",
    ]);
    expect(await store.list({ active: true })).toEqual([]);
    expect((await store.list({ active: false })).map((s) => s.status)).toEqual(["completed"]);
  });
});
