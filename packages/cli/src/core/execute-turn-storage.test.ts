/** A CLI run whose journal or status cannot be written says so (issue 37 item 9). */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { type CliStore, openCliStore } from "./cli-store.js";
import { executeTurn } from "./execute-turn.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** What the SQLite layer throws on a full disk (see sqlite-full-disk.test.ts for the real one). */
const full = (file: string) =>
  new TinyAgentsError(
    "storage",
    `SQLite: could not save the status in ${file} (SQLITE_FULL): database or disk is full`,
    {
      details: { file, sqliteCode: "SQLITE_FULL" },
    },
  );

async function storeWithFullDisk(): Promise<CliStore> {
  const dir = await mkdtemp(join(tmpdir(), "tinyagents-cli-full-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  const store = await openCliStore(join(dir, "t.db"));
  cleanup.push(() => store.close());
  const reject = async () => {
    throw full(store.file);
  };
  // Every status and journal write fails, as on a full disk; reads still work.
  const statusStore = Object.create(store.statusStore, {
    save: { value: reject },
    saveMany: { value: reject },
  });
  const journal = Object.create(store.journal, { append: { value: reject }, appendMany: { value: reject } });
  return { ...store, statusStore, journal };
}

describe("executeTurn on a store that cannot be written", () => {
  it("reports the storage error in the turn result instead of a silent success", async () => {
    const store = await storeWithFullDisk();
    const harness = new AgentHarness().registerModel("m", new ScriptedModel(["the answer"]));
    const turn = await executeTurn({ harness, store, prompt: "go", command: "run", modelSpec: "m" });
    expect(turn.storageError).toMatchObject({ code: "storage", details: { sqliteCode: "SQLITE_FULL" } });
    expect(turn.storageError?.message).toContain(store.file);
  });

  it("a healthy store reports no storage error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tinyagents-cli-ok-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openCliStore(join(dir, "t.db"));
    cleanup.push(() => store.close());
    const harness = new AgentHarness().registerModel("m", new ScriptedModel(["fine"]));
    const turn = await executeTurn({ harness, store, prompt: "go", command: "run", modelSpec: "m" });
    expect(turn.storageError).toBeUndefined();
    expect((await store.statusStore.get(turn.runId))?.status).toBe("completed");
  });
});
