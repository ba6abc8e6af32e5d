import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsageTotals } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { emptyCost } from "../cost/cost.js";
import type { AgentObservation } from "../observability/agent-observation.js";
import { AppendLogEventJournal } from "../observability/append-log-event-journal.js";
import { JournalSink } from "../observability/journal-sink.js";
import { openSqliteDatabase, type SqliteDb } from "./sqlite-database.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteStore } from "./sqlite-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database whose outer transactions (the group commits) are counted. */
function countingDb(): { db: SqliteDb; raw: SqliteDb; commits: () => number } {
  const db = openSqliteDatabase(":memory:");
  db.exec("CREATE TABLE t (v INTEGER NOT NULL CHECK (v >= 0))");
  let commits = 0;
  const counted = Object.create(db) as SqliteDb;
  counted.transaction = ((fn: (...args: unknown[]) => unknown, options?: { inline?: boolean }) => {
    const tx = db.transaction(fn, options);
    return Object.assign((...args: unknown[]) => tx(...args), {
      immediate: (...args: unknown[]) => {
        commits++;
        return tx.immediate(...args);
      },
    });
  }) as SqliteDb["transaction"];
  return { db: counted, raw: db, commits: () => commits };
}

describe("SqliteGroupCommit", () => {
  it("commits the writes of one event-loop turn in one transaction", async () => {
    const { db, raw, commits } = countingDb();
    const commit = new SqliteGroupCommit(db);
    // An atomic write of its own (as the log and status store make them).
    const insert = raw.transaction((v: number) => db.prepare("INSERT INTO t (v) VALUES (?)").run(v).changes);
    await Promise.all([1, 2, 3].map((v) => commit.submit(() => insert.immediate(v))));
    expect(commits()).toBe(1);
    expect(db.prepare("SELECT v FROM t ORDER BY v").all()).toEqual([{ v: 1 }, { v: 2 }, { v: 3 }]);
    await commit.submit(() => insert.immediate(4)); // the next turn: a second commit
    expect(commits()).toBe(2);
    db.close();
  });

  it("a failing write fails alone and leaves nothing: the batch rolls back, its other writes commit one by one", async () => {
    const { db, raw } = countingDb();
    const commit = new SqliteGroupCommit(db);
    let rollbacks = 0;
    commit.onRollback(() => rollbacks++);
    // Each write inserts its value and its value + 10 (the CHECK refuses negative values).
    const insert = raw.transaction((v: number) => {
      db.prepare("INSERT INTO t (v) VALUES (?)").run(v + 10);
      return db.prepare("INSERT INTO t (v) VALUES (?)").run(v).changes;
    });
    const writes = [1, 2, -1, 3].map((v) => commit.submit(() => insert.immediate(v)));
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect(rollbacks).toBe(1);
    // The failing write's first row (9) is gone with it; the others' rows are all there.
    expect(db.prepare("SELECT v FROM t ORDER BY v").all()).toEqual([1, 2, 3, 11, 12, 13].map((v) => ({ v })));
    db.close();
  });

  it("flushNow commits pending writes synchronously", async () => {
    const { db, commits } = countingDb();
    const commit = new SqliteGroupCommit(db);
    const done = commit.submit(() => db.prepare("INSERT INTO t (v) VALUES (7)").run().changes);
    commit.flushNow();
    expect(commits()).toBe(1);
    expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 });
    await expect(done).resolves.toBe(1);
    db.close();
  });

  it("SqliteStore.close() commits appends and status saves still waiting for their turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-sqlite-gc-"));
    dirs.push(dir);
    const file = join(dir, "db.sqlite");
    const store = SqliteStore.open(file);
    const appended = store.appendLog.appendMany("s", [1, 2, 3]);
    const saved = store.statusStore.save({
      runId: "r",
      rootRunId: "r",
      component: "agent",
      status: "completed",
      phase: "idle",
      modelCalls: 1,
      toolCalls: 0,
      activeToolCalls: [],
      usage: emptyUsageTotals(),
      cost: emptyCost(),
      startedAt: 1,
      updatedAt: 2,
      endedAt: 2,
    });
    store.close(); // same turn: nothing committed yet
    await expect(appended).resolves.toEqual([0, 1, 2]);
    await saved;
    const reopened = SqliteStore.open(file);
    try {
      expect((await reopened.appendLog.readFrom("s", 0, 10)).map((e) => e.value)).toEqual([1, 2, 3]);
      expect((await reopened.statusStore.get("r"))?.status).toBe("completed");
    } finally {
      reopened.close();
    }
  });

  it("commits a journal queue's batch in the turn end that drains it, not one turn later", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-sqlite-gc-"));
    dirs.push(dir);
    const store = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      const sink = new JournalSink(new AppendLogEventJournal(store.appendLog));
      sink.write({
        id: "r-evt-0",
        offset: 0,
        ts: 1,
        runId: "r",
        rootRunId: "r",
        depth: 0,
        event: { type: "run.started", input: 1 },
      } as AgentObservation);
      // The queue drains at this turn's end; an immediate registered now runs in the next turn.
      let nextTurnBegan = false;
      setImmediate(() => {
        nextTurnBegan = true;
      });
      await sink.flush();
      expect(nextTurnBegan).toBe(false);
      expect((await store.appendLog.readFrom("journal-r", 0, 10)).length).toBe(1);
    } finally {
      store.close();
    }
  });
});

describe("SqliteGroupCommit while another connection holds the write lock", () => {
  it("gives the event loop back and commits once the lock is free, instead of freezing until the busy timeout", async () => {
    const dir = mkdtempSync(join(tmpdir(), "group-commit-lock-"));
    dirs.push(dir);
    const file = join(dir, "db.sqlite");
    const writer = openSqliteDatabase(file);
    writer.exec("CREATE TABLE t (v INTEGER NOT NULL)");
    const other = openSqliteDatabase(file); // another process's connection, in effect
    const commit = new SqliteGroupCommit(writer);
    other.exec("BEGIN IMMEDIATE"); // holds the write lock
    const started = Date.now();
    const write = commit.submit(() => writer.prepare("INSERT INTO t (v) VALUES (1)").run().changes);
    let settled = false;
    void write.finally(() => {
      settled = true;
    });
    // The event loop keeps turning while the commit waits: a timer fires, the write is pending.
    let ticks = 0;
    while (ticks < 5) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      ticks++;
    }
    expect(settled).toBe(false);
    // Without giving the loop back, this release could only run after the busy timeout (5 s),
    // when the write had already failed with SQLITE_BUSY.
    other.exec("COMMIT");
    await expect(write).resolves.toBe(1);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(writer.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: 1 });
    other.close();
    writer.close();
  });
});
