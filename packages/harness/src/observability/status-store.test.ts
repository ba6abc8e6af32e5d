import { emptyUsageTotals } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { emptyCost } from "../cost/cost.js";
import type { HarnessRunStatus } from "../status/run-status.js";
import { InMemoryKeyValueStore } from "../store/key-value-store.js";
import { KeyValueHarnessStatusStore } from "./key-value-status-store.js";

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

// The HarnessStatusStore contract (memory, files, SQLite, Postgres) runs in the store conformance
// suites (testkit/store-conformance, store/store-conformance*.test.ts); here: the key-value store's own.
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
