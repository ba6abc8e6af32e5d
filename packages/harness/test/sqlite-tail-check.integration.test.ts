/**
 * The SQLite journal's second-writer check and the status store's stale-save check across
 * processes, now that a connection remembers what it wrote last and skips reading it back while
 * `PRAGMA data_version` says no other connection committed (`SqliteOwnWrites`): another PROCESS
 * that commits to the file between two of our commits must make our next commit read it again,
 * so a journal writer that did not continue the stored stream is refused with `conflict` (not
 * written past the other's rows, nor failed as a storage error), one that did is accepted, and a
 * running status saved after another process finished the run loses.
 *
 * Budget: about 5 s on 2 cores (one child process for each exact point, three for the race with
 * the child arriving 0-40 ms into the parent's commits; each child starts in ~0.5 s).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentObservation } from "../src/observability/agent-observation.js";
import { AppendLogEventJournal } from "../src/observability/append-log-event-journal.js";
import { SqliteAppendLog } from "../src/sqlite/sqlite-append-log.js";
import { openSqliteDatabase, type SqliteDb } from "../src/sqlite/sqlite-database.js";
import { SqliteGroupCommit } from "../src/sqlite/sqlite-group-commit.js";
import { SqliteHarnessStatusStore } from "../src/sqlite/sqlite-status-store.js";
import { conformanceStatus } from "../src/testkit/store-conformance/status-store-conformance.js";
import { tempDir } from "./support/temp-dir.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Our connection to `file`, its journal, and a count of the tail reads it made. */
function ourJournal(file: string): { journal: AppendLogEventJournal; tailReads: () => number } {
  const db = openSqliteDatabase(file);
  cleanup.push(() => db.close());
  let tailReads = 0;
  const counted = Object.create(db) as SqliteDb;
  counted.prepare = (sql: string) => {
    const statement = db.prepare(sql);
    if (!sql.includes("ORDER BY offset DESC LIMIT 1")) return statement;
    return {
      run: (...params: unknown[]) => statement.run(...params),
      all: (...params: unknown[]) => statement.all(...params),
      get: (...params: unknown[]) => {
        tailReads++;
        return statement.get(...params);
      },
    };
  };
  const log = new SqliteAppendLog(counted, new SqliteGroupCommit(counted));
  return { journal: new AppendLogEventJournal(log), tailReads: () => tailReads };
}

function record(root: string, offset: number): AgentObservation {
  return {
    id: `${root}-evt-${offset}`,
    offset,
    ts: offset,
    runId: root,
    rootRunId: root,
    depth: 0,
    event: { type: "run.started", input: 0 }, // 0: ours, 1: the other process's
  };
}

/** Start the other process (fixtures/sqlite-journal-writer.ts); resolves with its output at exit. */
function otherProcess(args: string[], onLine?: (line: string) => void): Promise<string> {
  const child = spawn(
    process.execPath,
    ["--import", join(fixtures, "register-ts.mjs"), join(fixtures, "sqlite-journal-writer.ts"), ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (const line of chunk.toString().split("\n")) if (line !== "") onLine?.(line);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve, reject) =>
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`writer exited ${String(code)}: ${out}${err}`)),
    ),
  );
}

describe("SQLite second-writer check with remembered tails, across processes", () => {
  it("another process commits between two of ours: our next commit reads the tail and is refused", async () => {
    const file = join(await tempDir(cleanup, "tinyagents-tails-"), "shared.db");
    const { journal, tailReads } = ourJournal(file);
    await journal.appendMany([record("r", 0), record("r", 1)]);
    await journal.appendMany([record("r", 2)]); // read, and remembered from here on
    await journal.appendMany([record("r", 3)]);
    expect(tailReads()).toBe(2); // the third commit read nothing back: the skip is in use

    // The other process continues the stream (it reads the tail itself): rows 4 and 5.
    expect(await otherProcess([file, "r", "4", "1", "2"])).toContain("done 1");

    // We go on from what we wrote last: refused, not written past its rows.
    await expect(journal.appendMany([record("r", 4)])).rejects.toMatchObject({
      code: "conflict",
      details: { runId: "r" },
    });
    expect(tailReads()).toBe(3);
    const stored = await journal.read("r");
    expect(stored.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stored.map((r) => (r.event as { input?: number }).input)).toEqual([0, 0, 0, 0, 1, 1]);
    // Continuing from the stored tail is accepted.
    await journal.appendMany([record("r", 6)]);
    expect((await journal.read("r")).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("a process arriving at different points of our commits is always caught at our next commit", async () => {
    const dir = await tempDir(cleanup, "tinyagents-tails-race-");
    for (const [round, delayMs] of [0, 15, 40].entries()) {
      const file = join(dir, `race-${round}.db`);
      const goFile = join(dir, `go-${round}`);
      const { journal } = ourJournal(file);
      await journal.appendMany([record("r", 0)]);
      let ready!: () => void;
      const isReady = new Promise<void>((resolve) => {
        ready = resolve;
      });
      // Its records continue far past ours, so its own check accepts them wherever it lands.
      const other = otherProcess([file, "r", "1000000", "1", "1", goFile], (line) => {
        if (line === "ready") ready();
      });
      await isReady;
      // Our commits, one per turn, until one of them meets the other's rows; the other process
      // is let go `delayMs` into them (bounded: 5 s after that).
      const start = Date.now();
      let goneAt: number | undefined;
      let offset = 1;
      let refused: unknown;
      for (; offset < 1_000_000; offset++) {
        if (goneAt === undefined && Date.now() >= start + delayMs) {
          writeFileSync(goFile, "");
          goneAt = Date.now();
        }
        try {
          await journal.appendMany([record("r", offset)]);
        } catch (error) {
          refused = error;
          break;
        }
        if (goneAt !== undefined && Date.now() > goneAt + 5_000) break;
      }
      expect(await other).toContain("done 1");
      expect(refused).toMatchObject({ code: "conflict" });
      const stored = await journal.read("r");
      // Ours up to the refusal, then its record: nothing of ours written past it.
      expect(stored.map((r) => r.offset)).toEqual([
        ...Array.from({ length: offset }, (_, i) => i),
        1_000_000,
      ]);
    }
  });

  it("another process finishes a run between two of our saves: our next running save loses", async () => {
    const file = join(await tempDir(cleanup, "tinyagents-tails-"), "shared.db");
    const db = openSqliteDatabase(file);
    cleanup.push(() => db.close());
    const store = new SqliteHarnessStatusStore(db, 100, new SqliteGroupCommit(db));
    for (const updatedAt of [1, 2, 3])
      await store.save(conformanceStatus("r", { status: "running", updatedAt }));
    expect(await otherProcess([file, "r", "status", "1", "1"])).toContain("done 1");
    await store.save(conformanceStatus("r", { status: "running", updatedAt: 4 }));
    const stored = await store.get("r");
    expect(stored?.status).toBe("completed");
    expect(stored?.updatedAt).toBe(10);
  });
});
