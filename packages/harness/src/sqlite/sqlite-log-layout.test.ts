import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AppendLogEventJournal } from "../observability/append-log-event-journal.js";
import { openSqliteDatabase } from "./sqlite-database.js";
import { availableSqliteDrivers } from "./sqlite-drivers.fixture.js";
import { SqliteStore } from "./sqlite-store.js";

// The `log` table of a new file is a rowid table with a `(stream, offset)` key: a commit writes
// fewer pages than in a `WITHOUT ROWID` table, whose interior cells hold whole records (issue 40).
// Files made with the earlier layout are opened as they are (no migration): both layouts answer
// the same statements, so a store works the same on either.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "tinyagents-log-layout-"));
  dirs.push(dir);
  return join(dir, "db.sqlite");
}

/** The `CREATE TABLE` statement SQLite keeps for `log`. */
function logTableSql(file: string): string {
  const db = openSqliteDatabase(file);
  try {
    const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'log'").get();
    return (row as { sql: string }).sql;
  } finally {
    db.close();
  }
}

/** Appends, reads, lengths, stream names and a journal on `file`. */
async function exercise(file: string, driver: Parameters<typeof SqliteStore.open>[1]): Promise<void> {
  const store = SqliteStore.open(file, driver);
  try {
    const log = store.appendLog;
    expect(await log.appendMany("b", [{ n: 0 }, { n: 1 }])).toEqual([0, 1]);
    expect(await log.append("a", { n: 0 })).toBe(0);
    expect(await log.append("b", { n: 2 })).toBe(2);
    expect((await log.readFrom("b", 1, 10)).map((e) => [e.offset, e.value])).toEqual([
      [1, { n: 1 }],
      [2, { n: 2 }],
    ]);
    expect(await log.length("b")).toBe(3);
    expect(await log.listStreams()).toEqual(["a", "b"]);
    const journal = new AppendLogEventJournal(log);
    const observation = { id: "r-evt-0", offset: 0, ts: 1, runId: "r", rootRunId: "r", depth: 0 };
    await journal.append({ ...observation, event: { type: "run.started", input: "hi" } } as never);
    expect((await journal.read("r")).map((o) => o.event.type)).toEqual(["run.started"]);
  } finally {
    store.close();
  }
}

describe.each(availableSqliteDrivers())("SqliteStore on %s: the log table's layout", (driver) => {
  it("a new file's log is a rowid table keyed by (stream, offset)", async () => {
    const file = tempFile();
    await exercise(file, { driver });
    const sql = logTableSql(file);
    expect(sql).toContain("PRIMARY KEY (stream, offset)");
    expect(sql).not.toMatch(/WITHOUT ROWID/i);
  });

  it("a file made with the earlier WITHOUT ROWID layout is opened as it is and works the same", async () => {
    const file = tempFile();
    const db = openSqliteDatabase(file, { driver });
    db.exec(
      "DROP TABLE log; CREATE TABLE log (stream TEXT NOT NULL, offset INTEGER NOT NULL, value TEXT NOT NULL, PRIMARY KEY (stream, offset)) WITHOUT ROWID",
    );
    db.close();
    await exercise(file, { driver });
    expect(logTableSql(file)).toMatch(/WITHOUT ROWID/i);
  });
});
