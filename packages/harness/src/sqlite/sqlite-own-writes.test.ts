/**
 * The SQLite append log and status store remember what their connection wrote last
 * (`SqliteOwnWrites`): a journal's next commit to a stream reads no tail back, a running run's
 * next save reads no row back, while no other connection committed (`PRAGMA data_version`) and
 * none of its own transactions rolled back. These tests pin the skip, and that it never outlives
 * a write it did not see.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonValue } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentObservation } from "../observability/agent-observation.js";
import { AppendLogEventJournal } from "../observability/append-log-event-journal.js";
import type { AppendGroup } from "../store/append-log.js";
import { conformanceStatus } from "../testkit/store-conformance/status-store-conformance.js";
import { SqliteAppendLog } from "./sqlite-append-log.js";
import { openSqliteDatabase, type SqliteDb } from "./sqlite-database.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteHarnessStatusStore } from "./sqlite-status-store.js";
import { SqliteStore } from "./sqlite-store.js";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-tails-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "shared.db");
}

/** A connection to `file` whose reads of a stream's last row are counted. */
function countingLog(file: string): { log: SqliteAppendLog; db: SqliteDb; tailReads: () => number } {
  const { db, reads } = countingDb(file, "ORDER BY offset DESC LIMIT 1");
  return { log: new SqliteAppendLog(db, new SqliteGroupCommit(db)), db, tailReads: reads };
}

/** A connection to `file` whose executions of the statements containing `marker` are counted. */
function countingDb(file: string, marker: string): { db: SqliteDb; reads: () => number } {
  const db = openSqliteDatabase(file);
  cleanup.push(() => db.close());
  let reads = 0;
  const counted = Object.create(db) as SqliteDb;
  counted.prepare = (sql: string) => {
    const statement = db.prepare(sql);
    if (!sql.includes(marker)) return statement;
    return {
      run: (...params: unknown[]) => statement.run(...params),
      all: (...params: unknown[]) => statement.all(...params),
      get: (...params: unknown[]) => {
        reads++;
        return statement.get(...params);
      },
    };
  };
  return { db: counted, reads: () => reads };
}

function record(root: string, offset: number, writer = "a"): AgentObservation {
  return {
    id: `${root}-evt-${offset}`,
    offset,
    ts: offset,
    runId: root,
    rootRunId: root,
    depth: 0,
    event: { type: "run.started", input: writer === "a" ? 0 : 1 },
  };
}

const records = (root: string, from: number, count: number, writer = "a") =>
  Array.from({ length: count }, (_, i) => record(root, from + i, writer));

describe("SqliteAppendLog stream tails", () => {
  it("a journal's next commit to a stream it wrote reads no tail back", async () => {
    const { log, tailReads } = countingLog(tempFile());
    const journal = new AppendLogEventJournal(log);
    await journal.appendMany(records("r", 0, 3));
    await journal.appendMany(records("r", 3, 2));
    expect(tailReads()).toBe(2); // a new stream, then its second commit: read, and remembered
    await journal.appendMany(records("r", 5, 1));
    expect(tailReads()).toBe(2);
    // A second writer of the tree that did not continue it is still refused, from the tail kept.
    await expect(journal.appendMany(records("r", 4, 1, "b"))).rejects.toMatchObject({ code: "conflict" });
    expect((await journal.read("r")).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("reads the tail again after another connection committed, and refuses a stale writer", async () => {
    const file = tempFile();
    const { log, tailReads } = countingLog(file);
    const journal = new AppendLogEventJournal(log);
    const other = SqliteStore.open(file);
    cleanup.push(() => other.close());
    const otherJournal = new AppendLogEventJournal(other.appendLog);

    await journal.appendMany(records("r", 0, 2));
    await journal.appendMany(records("r", 2, 1));
    await journal.appendMany(records("r", 3, 1));
    expect(tailReads()).toBe(2);
    // Another connection commits to another stream: ours is unchanged, but nothing kept is trusted.
    await otherJournal.appendMany(records("elsewhere", 0, 1, "b"));
    await journal.appendMany(records("r", 4, 1));
    expect(tailReads()).toBe(3);
    // It continues our stream (from its own read of the tail) between two of our commits.
    await otherJournal.appendMany(records("r", 5, 2, "b"));
    // Our next commit continues from what WE wrote last: refused, not written past theirs.
    await expect(journal.appendMany(records("r", 5, 1))).rejects.toMatchObject({
      code: "conflict",
      details: { runId: "r" },
    });
    expect(tailReads()).toBe(4);
    const stored = await journal.read("r");
    expect(stored.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(stored.slice(5).map((r) => (r.event as { input?: number }).input)).toEqual([1, 1]); // theirs
    // Continuing from the stored tail is accepted.
    await journal.appendMany(records("r", 7, 1));
    expect((await journal.read("r")).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("forgets what a rolled-back commit wrote", async () => {
    const { log } = countingLog(tempFile());
    const group = (stream: string, from: number, count: number, refuse = false): AppendGroup => ({
      stream,
      values: records("r", from, count) as unknown as JsonValue[],
      checkOffset: () => {
        if (refuse) throw new Error("refused");
      },
      valuesFrozen: true,
    });
    await log.appendGroups([group("a", 0, 3)]);
    await log.appendGroups([group("a", 3, 1)]);
    // Stream a's group is written, then b's check refuses: the whole commit rolls back.
    await expect(log.appendGroups([group("a", 4, 2), group("b", 0, 1, true)])).rejects.toThrow("refused");
    const seen: (number | undefined)[] = [];
    await log.appendGroups([
      {
        stream: "a",
        values: [record("r", 4)] as unknown as JsonValue[],
        checkOffset: (last) => seen.push(last),
        valuesFrozen: true,
      },
    ]);
    expect(seen).toEqual([3]); // the stored tail, not the rolled-back one
    expect((await log.readFrom("a", 0, 100)).map((e) => e.offset)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a plain appendMany and a group copied at the call keep the next offsets dense", async () => {
    const { log } = countingLog(tempFile());
    const journal = new AppendLogEventJournal(log);
    await journal.appendMany(records("r", 0, 2));
    await journal.appendMany(records("r", 2, 1)); // remembered
    await log.appendMany("journal-r", [record("r", 3) as unknown as JsonValue]);
    await journal.appendMany(records("r", 4, 1));
    const copied = records("r", 5, 1) as unknown as JsonValue[];
    await log.appendGroups([{ stream: "journal-r", values: copied, checkOffset: () => {} }]);
    await journal.appendMany(records("r", 6, 1));
    expect((await journal.read("r")).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe("SqliteHarnessStatusStore saved rows", () => {
  /** Our status store on `file`, counting its reads of a stored row before a save. */
  function countingStore(file: string): { store: SqliteHarnessStatusStore; rowReads: () => number } {
    const { db, reads } = countingDb(file, "json_extract(record, '$.epoch')");
    return { store: new SqliteHarnessStatusStore(db, 100, new SqliteGroupCommit(db)), rowReads: reads };
  }
  const running = (updatedAt: number) => conformanceStatus("r", { status: "running", updatedAt });

  it("a running run's next save reads no row back", async () => {
    const { store, rowReads } = countingStore(tempFile());
    await store.save(running(1));
    await store.save(running(2)); // the row exists: read, and remembered
    expect(rowReads()).toBe(2);
    await store.save(running(3));
    await store.save(running(4));
    expect(rowReads()).toBe(2);
    // A stale save still loses, against the remembered row.
    await store.save(running(3));
    expect((await store.get("r"))?.updatedAt).toBe(4);
    await store.save(conformanceStatus("r", { status: "completed", updatedAt: 5, endedAt: 5 }));
    expect((await store.get("r"))?.status).toBe("completed");
  });

  it("reads the row again after another connection saved it, so a stale save loses", async () => {
    const file = tempFile();
    const { store, rowReads } = countingStore(file);
    const other = SqliteStore.open(file);
    cleanup.push(() => other.close());
    await store.save(running(1));
    await store.save(running(2));
    await store.save(running(3));
    expect(rowReads()).toBe(2);
    // Another connection finishes the run between two of our saves.
    await other.statusStore.save(conformanceStatus("r", { status: "completed", updatedAt: 10, endedAt: 10 }));
    await store.save(running(4)); // a running record after the finished one: loses
    expect(rowReads()).toBe(3);
    const stored = await other.statusStore.get("r");
    expect(stored?.status).toBe("completed");
    expect(stored?.updatedAt).toBe(10);
  });

  it("a remembered row gone behind the store's back (same connection) is written again, not lost", async () => {
    const { db, reads } = countingDb(tempFile(), "json_extract(record, '$.epoch')");
    const store = new SqliteHarnessStatusStore(db, 100, new SqliteGroupCommit(db));
    await store.save(running(1));
    await store.save(running(2)); // remembered
    expect(reads()).toBe(2);
    db.exec("DELETE FROM run_status"); // this connection: data_version does not move
    await store.save(running(3));
    expect((await store.get("r"))?.updatedAt).toBe(3);
  });

  it("a deleted run's next save writes its row again", async () => {
    const { store } = countingStore(tempFile());
    await store.save(running(1));
    await store.save(running(2)); // remembered
    expect(await store.delete("r")).toBe(true);
    await store.save(running(3));
    expect((await store.get("r"))?.updatedAt).toBe(3);
  });
});

describe("one change check per commit", () => {
  it("a commit holding a journal group and a status save reads data_version once", async () => {
    const { db, reads } = countingDb(tempFile(), "PRAGMA data_version");
    const commit = new SqliteGroupCommit(db);
    const journal = new AppendLogEventJournal(new SqliteAppendLog(db, commit));
    const store = new SqliteHarnessStatusStore(db, 100, commit);
    const turn = (i: number) =>
      Promise.all([
        journal.appendMany(records("r", i, 1)),
        store.save(conformanceStatus("r", { status: "running", updatedAt: i })),
      ]);
    for (let i = 0; i < 3; i++) await turn(i); // both remember from their second commit on
    const before = reads();
    await turn(3);
    await turn(4);
    expect(reads() - before).toBe(2);
    expect((await journal.read("r")).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
    expect((await store.get("r"))?.updatedAt).toBe(4);
  });
});
