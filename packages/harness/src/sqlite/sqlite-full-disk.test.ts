import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { AppendLogEventJournal } from "../observability/append-log-event-journal.js";
import { attachObservability } from "../observability/attach-observability.js";
import { createAgent } from "../runtime/create-agent.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { conformanceStatus } from "../testkit/store-conformance/status-store-conformance.js";
import { SqliteAppendLog } from "./sqlite-append-log.js";
import { openSqliteDatabase } from "./sqlite-database.js";
import { availableSqliteDrivers } from "./sqlite-drivers.fixture.js";
import { SqliteGroupCommit } from "./sqlite-group-commit.js";
import { SqliteHarnessStatusStore } from "./sqlite-status-store.js";

// Issue 37 item 9: a full disk is a typed `storage` error naming the file and the operation,
// never a raw SQLITE_FULL. The disk is "full" through SQLite's own limit (PRAGMA max_page_count).

const cleanup: (() => unknown)[] = [];
afterEach(() => {
  for (const fn of cleanup.splice(0).reverse()) fn();
});

describe.each(availableSqliteDrivers())("a full SQLite file on %s", (driver) => {
  const fullDatabase = () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-full-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "db.sqlite");
    const db = openSqliteDatabase(file, { driver });
    cleanup.push(() => db.close());
    const pages = Number(db.pragma("page_count", { simple: true }));
    db.pragma(`max_page_count = ${pages + 2}`); // room for a few small rows, then full
    return { file, db, commit: new SqliteGroupCommit(db) };
  };

  async function untilFull(write: (i: number) => Promise<unknown>): Promise<TinyAgentsError> {
    for (let i = 0; i < 1_000; i++) {
      try {
        await write(i);
      } catch (error) {
        expect(error).toBeInstanceOf(TinyAgentsError);
        return error as TinyAgentsError;
      }
    }
    throw new Error("the database never filled up");
  }

  it("an append to a full file rejects with storage, the file, the operation and SQLITE_FULL", async () => {
    const { file, db, commit } = fullDatabase();
    const log = new SqliteAppendLog(db, commit);
    const error = await untilFull((i) => log.append("journal-run-1", { i, pad: "x".repeat(2_000) }));
    expect(error.code).toBe("storage");
    expect(error.details).toMatchObject({ file, sqliteCode: "SQLITE_FULL" });
    expect(error.message).toContain(`in ${file} (SQLITE_FULL)`);
    expect(error.message).toContain("the disk is full; free space");
  });

  it("a status save to a full file rejects with storage too", async () => {
    const { file, db, commit } = fullDatabase();
    const store = new SqliteHarnessStatusStore(db, 100, commit);
    const error = await untilFull((i) =>
      store.save(conformanceStatus(`run-${i}`, { tags: ["y".repeat(2_000)] })),
    );
    expect(error.code).toBe("storage");
    expect(error.details).toMatchObject({ file, sqliteCode: "SQLITE_FULL" });
  });

  it("a library run on a full file completes and says its records were lost (result.recordsLost)", async () => {
    const { file, db, commit } = fullDatabase();
    const log = new SqliteAppendLog(db, commit);
    // Fill it to the last byte: big rows first, then small ones until even those do not fit.
    await untilFull((i) => log.append("filler", { i, pad: "x".repeat(2_000) }));
    await untilFull((i) => log.append("filler", { i }));
    const events = new EventSink("run-full");
    const statusStore = new SqliteHarnessStatusStore(db, 100, commit);
    const observed = attachObservability(events, { journal: new AppendLogEventJournal(log), statusStore });
    const result = await createAgent({ model: new ScriptedModel(["done"]) }).run("go", {
      runId: "run-full",
      events,
    });
    await observed.close();
    expect(result.stopReason).toBe("completed");
    expect(result.recordsLost?.journal).toBeGreaterThan(0);
    // The status row still fits in the status table's pages: the group commit rolled back on the
    // journal's failed append and reran each write alone, so only the journal's records are lost.
    expect(result.recordsLost?.status).toBe(0);
    expect((await statusStore.get("run-full"))?.status).toBe("completed");
    expect(result.recordsLost?.error).toMatchObject({
      code: "storage",
      details: { file, sqliteCode: "SQLITE_FULL" },
    });
  });
});
