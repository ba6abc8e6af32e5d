import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsageTotals } from "@tinyagents/inference";
import { afterAll, describe, expect, it } from "vitest";
import { emptyCost } from "../cost/cost.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { FileKeyValueStore } from "../store/file-key-value-store.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { KeyValueHarnessStatusStore } from "./key-value-status-store.js";
import type { HarnessStatusStore } from "./status-store.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const status = (runId: string, fields: Partial<HarnessRunStatus> = {}): HarnessRunStatus => ({
  runId,
  rootRunId: runId,
  component: "agent",
  status: "running",
  phase: "model",
  modelCalls: 0,
  toolCalls: 0,
  activeToolCalls: [],
  usage: emptyUsageTotals(),
  cost: emptyCost(),
  startedAt: 0,
  updatedAt: 0,
  ...fields,
});

const stores: [string, (max: number) => HarnessStatusStore][] = [
  ["in memory", (max) => new InMemoryHarnessStatusStore({ maxFinishedRuns: max })],
  [
    "over a FileKeyValueStore",
    (max) => {
      const dir = mkdtempSync(join(tmpdir(), "tinyagents-status-"));
      dirs.push(dir);
      return new KeyValueHarnessStatusStore(new FileKeyValueStore(dir), { maxFinishedRuns: max });
    },
  ],
];

describe.each(stores)("HarnessStatusStore %s", (_name, make) => {
  it("keeps the latest record per run and answers by thread, by root run, and active only", async () => {
    const store = make(100);
    await store.save(status("p", { threadId: "t1", startedAt: 1 }));
    await store.save(status("c", { rootRunId: "p", parentRunId: "p", threadId: "t1", startedAt: 2 }));
    await store.save(status("q", { threadId: "t2", startedAt: 3 }));
    await store.save(
      status("p", { threadId: "t1", startedAt: 1, updatedAt: 5, status: "completed", endedAt: 5 }),
    );
    expect((await store.get("p"))?.status).toBe("completed");
    expect((await store.list({ threadId: "t1" })).map((s) => s.runId)).toEqual(["p", "c"]);
    expect((await store.list({ rootRunId: "p" })).map((s) => s.runId)).toEqual(["p", "c"]);
    expect((await store.list({ active: true })).map((s) => s.runId)).toEqual(["c", "q"]);
    expect((await store.list({ active: false })).map((s) => s.runId)).toEqual(["p"]);
    expect((await store.list({ limit: 1 })).map((s) => s.runId)).toEqual(["p"]);
  });

  it("never lets a stale or backwards save win", async () => {
    const store = make(100);
    await store.save(status("r", { updatedAt: 10 }));
    await store.save(status("r", { updatedAt: 5, modelCalls: 99 }));
    expect((await store.get("r"))?.modelCalls).toBe(0);
    await store.save(status("r", { updatedAt: 20, status: "failed" }));
    await store.save(status("r", { updatedAt: 30, status: "running" }));
    expect((await store.get("r"))?.status).toBe("failed");
  });

  it("evicts only finished runs, the first finished first", async () => {
    const store = make(2);
    for (let i = 0; i < 5; i++) await store.save(status(`active-${i}`, { startedAt: i }));
    for (let i = 0; i < 4; i++) {
      await store.save(
        status(`done-${i}`, { startedAt: 10 + i, updatedAt: 10 + i, status: "completed", endedAt: 10 + i }),
      );
    }
    const ids = (await store.list()).map((s) => s.runId);
    expect(ids).toEqual(["active-0", "active-1", "active-2", "active-3", "active-4", "done-2", "done-3"]);
  });
});

describe("KeyValueHarnessStatusStore", () => {
  it("persists records and reloads them in a new instance", async () => {
    const kv = new InMemoryKeyValueStore();
    const first = new KeyValueHarnessStatusStore(kv);
    await first.save(status("run/1", { threadId: "t" }));
    const second = new KeyValueHarnessStatusStore(kv);
    expect((await second.list({ threadId: "t" })).map((s) => s.runId)).toEqual(["run/1"]);
    expect(await second.delete("run/1")).toBe(true);
    await first.refresh();
    expect(await first.get("run/1")).toBeDefined(); // refresh adds, a local delete is separate
    expect(await new KeyValueHarnessStatusStore(kv).get("run/1")).toBeUndefined();
  });
});
