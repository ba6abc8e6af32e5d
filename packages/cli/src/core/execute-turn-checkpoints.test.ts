/** CLI turns are checkpointed in the CLI's SQLite store (issue 17 item 2), and leave no checkpoint behind. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentHarness, CheckpointStore, tool } from "@tinyagents/harness";
import { ScriptedModel } from "@tinyagents/harness/testkit";
import type { JsonValue } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { openCliStore } from "./cli-store.js";
import { executeTurn } from "./execute-turn.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe("executeTurn checkpoints", () => {
  it("saves a checkpoint the tool can see mid-run, dropped (run recorded completed) when the run finishes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tinyagents-cli-cp-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openCliStore(join(dir, "t.db"));
    cleanup.push(() => store.close());
    const seen: (JsonValue | undefined)[] = [];
    const harness = new AgentHarness();
    harness.registerModel(
      "m",
      new ScriptedModel([{ toolCalls: [{ id: "c1", name: "look", arguments: {} }] }, "ok"]),
    );
    harness.registerTool(
      tool({
        name: "look",
        description: "look",
        inputSchema: { type: "object", properties: {} },
        execute: async () => {
          const checkpoints = new CheckpointStore(store.keyValue);
          const [runId] = await checkpoints.list();
          seen.push(
            runId === undefined ? undefined : ((await checkpoints.load(runId)) as unknown as JsonValue),
          );
          return "seen";
        },
      }),
    );
    const turn = await executeTurn({ harness, store, prompt: "go", command: "run", modelSpec: "m" });
    expect(turn.status.status).toBe("completed");
    expect(seen[0]).toMatchObject({
      runId: turn.runId,
      reason: "checkpoint",
      pendingToolCalls: [{ id: "c1" }],
    });
    const checkpoints = new CheckpointStore(store.keyValue);
    expect(await checkpoints.list()).toEqual([]);
    expect(await checkpoints.record(turn.runId)).toMatchObject({
      state: "completed",
      ownerId: `cli-${process.pid}`,
    });
  });

  it("the CLI store's checkpoints (what turns are durable in) write a run's record and running status together", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tinyagents-cli-cp-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const store = await openCliStore(join(dir, "t.db"));
    cleanup.push(() => store.close());
    await store.checkpoints.take({
      runId: "run-1",
      mode: "start",
      ownerId: "cli-1",
      leaseMs: 30_000,
      now: 1_000,
      start: { input: [], config: { runId: "run-1" } },
    });
    expect(await store.statusStore.get("run-1")).toMatchObject({ status: "running", ownerId: "cli-1" });
  });
});
