/**
 * Issue 32 (build 2): a durable run's input and config and its `running` status record are
 * written in ONE transaction of the SQLite file (`SqliteStore.checkpoints`): before the first
 * model call both exist — with no observability pipeline at all — and when the status write
 * fails, the record is rolled back with it (so no crash between the two can leave one alone).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckpointStore } from "../durability/checkpoint-store.js";
import { createAgent } from "../runtime/create-agent.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { SqliteStore } from "./sqlite-store.js";

let dir: string;
const stores: SqliteStore[] = [];
const open = () => {
  const store = SqliteStore.open(join(dir, "db.sqlite"));
  stores.push(store);
  return store;
};
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-durable-start-"));
});
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(dir, { recursive: true, force: true });
});

const input = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }];

describe("SqliteStore.checkpoints: a durable start writes record and status together", () => {
  it("the status record reads running, owned, leased, as soon as the take returned", async () => {
    const store = open();
    const lease = await store.checkpoints.take({
      runId: "r1",
      mode: "start",
      ownerId: "w1",
      leaseMs: 5_000,
      now: 1_000,
      start: { input, config: { runId: "r1", threadId: "t1", tags: ["a"] } },
    });
    expect(lease.epoch).toBe(1);
    expect(await store.statusStore.get("r1")).toMatchObject({
      runId: "r1",
      rootRunId: "r1",
      status: "running",
      modelCalls: 0,
      toolCalls: 0,
      ownerId: "w1",
      leaseUntil: 6_000,
      threadId: "t1",
      tags: ["a"],
      startedAt: 1_000,
    });
    // Another handle on the file (another process) sees both.
    const other = open();
    expect((await other.checkpoints.record("r1"))?.start?.input).toEqual(input);
    expect((await other.statusStore.get("r1"))?.status).toBe("running");
  });

  it("a failed status write rolls the record back: neither exists", async () => {
    const store = open();
    store.statusStore.saveNow = () => {
      throw new Error("disk I/O error");
    };
    const error = await store.checkpoints
      .take({
        runId: "r2",
        mode: "start",
        ownerId: "w1",
        leaseMs: 5_000,
        now: 1_000,
        start: { input, config: {} },
      })
      .catch((e: unknown) => e);
    expect(TinyAgentsError.isInstance(error, "storage")).toBe(true);
    expect(await store.keyValue.get(store.checkpoints.namespace, "r2")).toBeUndefined();
    expect(await store.statusStore.get("r2")).toBeUndefined();
  });

  it("agent.run(input, { durable: { store } }): both exist before the first model call, with no observability attached", async () => {
    const store = open();
    const seen: unknown[] = [];
    const model = new ScriptedModel([
      async () => {
        seen.push(await store.statusStore.get("r3"), (await store.checkpoints.record("r3"))?.start?.input);
        return "done";
      },
    ]);
    const run = await createAgent({ model }).run("hi", { runId: "r3", durable: { store, ownerId: "w3" } });
    expect(run.stopReason).toBe("completed");
    expect(seen[0]).toMatchObject({ runId: "r3", status: "running", ownerId: "w3" });
    expect(seen[1]).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  });

  it("a plain CheckpointStore over the same key-value table writes no status (the pipeline's alone)", async () => {
    const store = open();
    await new CheckpointStore(store.keyValue).take({
      runId: "r4",
      mode: "start",
      ownerId: "w1",
      leaseMs: 5_000,
      now: 1_000,
      start: { input, config: {} },
    });
    expect(await store.statusStore.get("r4")).toBeUndefined();
  });
});
