/**
 * Hostile ids (issue 37 items 7 and 8) on every in-process backend: memory, files (FileKeyValueStore,
 * JsonlAppendLog) and SQLite (each available driver). Postgres runs the same suites in
 * packages/postgres/test/postgres-hostile-keys.integration.test.ts. Also: a run id that no store
 * can keep is refused before the run starts.
 */
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempDirSync } from "../../test/support/temp-dir.js";
import { InMemoryHarnessStatusStore } from "../observability/in-memory-status-store.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { availableSqliteDrivers } from "../sqlite/sqlite-drivers.fixture.js";
import { SqliteStore } from "../sqlite/sqlite-store.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import {
  hostileKeyConformance,
  hostileStreamConformance,
  UNSTORABLE_IDS,
} from "../testkit/store-conformance/store-conformance.js";
import { InMemoryAppendLog } from "./append-log.js";
import { FileKeyValueStore } from "./file-key-value-store.js";
import { JsonlAppendLog } from "./jsonl-append-log.js";
import { InMemoryKeyValueStore } from "./key-value-store.js";
import { encodeStoreName } from "./store-names.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe("in memory", () => {
  const kv = { open: async (now: () => number) => ({ store: new InMemoryKeyValueStore({ now }) }) };
  for (const c of hostileKeyConformance(kv)) it(c.name, c.run);
  for (const c of hostileStreamConformance({ open: async () => ({ log: new InMemoryAppendLog() }) }))
    it(c.name, c.run);
});

describe("files", () => {
  const kv = {
    open: async (now: () => number) => ({
      store: new FileKeyValueStore(tempDirSync(cleanup, "tinyagents-hostile-keys-"), { now }),
    }),
  };
  for (const c of hostileKeyConformance(kv)) it(`FileKeyValueStore: ${c.name}`, c.run);
  const log = {
    open: async () => {
      const l = new JsonlAppendLog(tempDirSync(cleanup, "tinyagents-hostile-keys-"));
      cleanup.push(() => l.close());
      return { log: l };
    },
  };
  for (const c of hostileStreamConformance(log)) it(`JsonlAppendLog: ${c.name}`, c.run);

  it("encodeStoreName refuses a lone surrogate with validation instead of a raw URIError", () => {
    expect(() => encodeStoreName("lone-\uD800")).toThrow(expect.objectContaining({ code: "validation" }));
    expect(encodeStoreName("a/b")).not.toBe(encodeStoreName("a%2Fb"));
  });
});

describe.each(availableSqliteDrivers())("SQLite on %s", (driver) => {
  const open = () => {
    const dir = tempDirSync(cleanup, "tinyagents-hostile-keys-");
    const store = SqliteStore.open(join(dir, "db.sqlite"), { driver });
    cleanup.push(() => store.close());
    return store;
  };
  const kv = { open: async () => ({ store: open().keyValue }) };
  for (const c of hostileKeyConformance(kv)) it(`SqliteKeyValueStore: ${c.name}`, c.run);
  for (const c of hostileStreamConformance({ open: async () => ({ log: open().appendLog }) }))
    it(`SqliteAppendLog: ${c.name}`, c.run);
});

describe("runs with unstorable ids", () => {
  it("are refused with validation before the run starts: the model is never called", async () => {
    const model = new ScriptedModel(["hi"]);
    const harness = new AgentHarness().registerModel("m", model);
    for (const id of UNSTORABLE_IDS) {
      await expect(harness.run("hello", { runId: id })).rejects.toMatchObject({
        code: "validation",
        details: { field: "runId" },
      });
      await expect(harness.run("hello", { threadId: id })).rejects.toMatchObject({
        code: "validation",
        details: { field: "threadId" },
      });
    }
    expect(model.requests).toHaveLength(0);
  });

  it("a status record with such a run id is refused by the status store", async () => {
    const statusStore = new InMemoryHarnessStatusStore();
    await expect(
      statusStore.save({ runId: "lone-\uD800", status: "running", startedAt: 0 } as never),
    ).rejects.toMatchObject({ code: "validation" });
  });
});
