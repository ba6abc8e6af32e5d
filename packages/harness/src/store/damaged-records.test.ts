import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDirSync } from "../../test/support/temp-dir.js";
import { AppendLogEventJournal } from "../observability/append-log-event-journal.js";
import { openSqliteDatabase } from "../sqlite/sqlite-database.js";
import { availableSqliteDrivers } from "../sqlite/sqlite-drivers.fixture.js";
import { SqliteStore } from "../sqlite/sqlite-store.js";
import { conformanceStatus } from "../testkit/store-conformance/status-store-conformance.js";
import { JsonlAppendLog } from "./jsonl-append-log.js";
import type { StoreWarning } from "./store-warning.js";

// Issue 37 item 10: readers skip and report damaged records (file, record, offset) instead of
// failing whole listings.

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const observation = (offset: number) => ({
  id: `run-1-evt-${offset}`,
  offset,
  ts: 1_000 + offset,
  runId: "run-1",
  rootRunId: "run-1",
  depth: 0,
  event: { type: "run.started", input: "hi" },
});

describe("a JSONL journal with a null line and a foreign value", () => {
  it("reads the good observations and warns with the file, stream and offset of each bad one", async () => {
    const dir = tempDirSync(cleanup, "tinyagents-damaged-");
    const log = new JsonlAppendLog(dir);
    cleanup.push(() => log.close());
    const warnings: StoreWarning[] = [];
    const journal = new AppendLogEventJournal(log, { where: dir, onWarning: (w) => warnings.push(w) });
    await journal.append(observation(0) as never);
    const stream = (await log.listStreams())[0] as string;
    await log.append(stream, null); // offset 1: what a damaged writer left
    await log.append(stream, [1, 2]); // offset 2: not an observation either
    await journal.append(observation(3) as never);
    const read = await journal.read("run-1");
    expect(read.map((o) => o.offset)).toEqual([0, 3]);
    expect(warnings.map((w) => [w.code, w.file, w.record, w.offset])).toEqual([
      ["damaged_record", dir, stream, 1],
      ["damaged_record", dir, stream, 2],
    ]);
    expect(warnings[0]?.message).toContain(
      `${dir}: record "${stream}" at offset 1 is not a journal observation`,
    );
  });
});

describe.each(availableSqliteDrivers())("SQLite on %s with damaged rows", (driver) => {
  it("skips a damaged log row and a damaged status record, naming the file", async () => {
    const file = join(tempDirSync(cleanup, "tinyagents-damaged-"), "db.sqlite");
    const warnings: StoreWarning[] = [];
    const store = SqliteStore.open(file, { driver, onWarning: (w) => warnings.push(w) });
    cleanup.push(() => store.close());
    await store.appendLog.appendMany("s", [{ n: 0 }, { n: 1 }, { n: 2 }]);
    await store.statusStore.save(conformanceStatus("run-a", { startedAt: 1 }));
    await store.statusStore.save(conformanceStatus("run-b", { startedAt: 2 }));
    await store.statusStore.save(conformanceStatus("run-c", { startedAt: 3 }));
    store.flush();

    // Damage rows behind the store's back, as a bad disk page or a foreign writer would.
    const raw = openSqliteDatabase(file, { driver });
    raw.prepare("UPDATE log SET value = '{\"n\": 1' WHERE stream = 's' AND offset = 1").run();
    raw.prepare("UPDATE run_status SET record = 'not json' WHERE run_id = 'run-b'").run();
    raw.prepare("UPDATE run_status SET record = 'null' WHERE run_id = 'run-c'").run();
    raw.close();

    expect(await store.appendLog.readFrom("s", 0, 10)).toEqual([
      { offset: 0, value: { n: 0 } },
      { offset: 2, value: { n: 2 } },
    ]);
    expect((await store.statusStore.list({})).map((s) => s.runId)).toEqual(["run-a"]);
    expect(await store.statusStore.get("run-b")).toBeUndefined();
    expect(warnings.map((w) => [w.code, w.file, w.record, w.offset])).toEqual([
      ["damaged_record", file, "s", 1],
      ["damaged_record", file, "run-b", undefined],
      ["damaged_record", file, "run-c", undefined],
      ["damaged_record", file, "run-b", undefined],
    ]);
    expect(warnings[1]?.message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: record "run-b" is not valid JSON`),
    );
  });
});
