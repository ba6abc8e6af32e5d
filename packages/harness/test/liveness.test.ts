/**
 * Issue 17 item 1: runs carry an owner, a heartbeat and a lease; one shared timer renews the
 * lease while a long call is in flight; `reapStale` marks runs whose process died `failed` /
 * `abandoned` in every status-store backend.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  AgentHarness,
  attachObservability,
  EventSink,
  type HarnessRunStatus,
  type HarnessStatusStore,
  heartbeatTimerOf,
  InMemoryHarnessStatusStore,
  KeyValueHarnessStatusStore,
} from "@tinyagents/harness";
import { FileKeyValueStore } from "@tinyagents/harness/node";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, EventRecorder, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { emptyUsageTotals } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "tinyagents-liveness-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe("heartbeats", () => {
  it("a long tool call renews the lease on one shared timer; the record names the owner", async () => {
    const clock = new DeterministicClock();
    const statusStore = new InMemoryHarnessStatusStore();
    const leases: number[] = [];
    const make = () => {
      const h = new AgentHarness<undefined, undefined>({ clock });
      h.registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ id: "c1", name: "slow", arguments: {} }] }, "done"]),
      );
      h.registerTool(
        FakeTool.of("slow", async (_args, ctx) => {
          // Both runs are registered on the clock's one heartbeat timer while their tools run.
          leases.push(heartbeatTimerOf(clock).size);
          await ctx.run.clock.sleep(100_000);
          return "ok";
        }),
      );
      return h;
    };
    const sink = new EventSink("a");
    const recorder = new EventRecorder();
    recorder.attach(sink);
    const obs = attachObservability(sink, { statusStore });
    const other = new EventSink("b");
    const obsB = attachObservability(other, { statusStore });
    const started = clock.now();
    await Promise.all([
      make().invoke(undefined, undefined, { runId: "a" }, "go", {
        events: sink,
        durability: { ownerId: "worker-7", leaseMs: 30_000 },
      }),
      make().invoke(undefined, undefined, { runId: "b" }, "go", {
        events: other,
        durability: { ownerId: "worker-8", leaseMs: 30_000 },
      }),
    ]);
    await obs.close();
    await obsB.close();
    expect(leases).toContain(2);
    expect(heartbeatTimerOf(clock).size).toBe(0); // the timer is released when the runs end
    const beats = recorder.ofType("run.heartbeat");
    // One at the start, then one per tick (a third of the lease) during the 100 s tool call.
    expect(beats.length).toBeGreaterThanOrEqual(4);
    for (const beat of beats) expect(beat).toMatchObject({ ownerId: "worker-7" });
    const leaseEnds = beats.map((b) => b.leaseUntil);
    expect(leaseEnds.at(-1)).toBeGreaterThan(started + 100_000);
    const record = await statusStore.get("a");
    expect(record).toMatchObject({ status: "completed", ownerId: "worker-7" });
    expect(record?.leaseUntil).toBe((record?.heartbeatAt ?? 0) + 30_000);
  });

  it("rejects a bad lease with a validation error", async () => {
    const h = new AgentHarness<undefined, undefined>();
    h.registerModel("m", new ScriptedModel(["x"]));
    await expect(
      h.invoke(undefined, undefined, {}, "go", { durability: { leaseMs: 0 } }),
    ).rejects.toMatchObject({ code: "validation" });
  });
});

function record(runId: string, fields: Partial<HarnessRunStatus>): HarnessRunStatus {
  return {
    runId,
    rootRunId: runId,
    component: "agent",
    status: "running",
    phase: "tools",
    modelCalls: 1,
    toolCalls: 0,
    activeToolCalls: ["c1"],
    usage: emptyUsageTotals(),
    cost: { currency: "USD", input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    startedAt: 1_000,
    updatedAt: 1_000,
    ...fields,
  };
}

const stores: [string, () => Promise<HarnessStatusStore>][] = [
  ["in memory", async () => new InMemoryHarnessStatusStore({ maxFinishedRuns: 3 })],
  [
    "key-value (files)",
    async () =>
      new KeyValueHarnessStatusStore(new FileKeyValueStore(await tempDir()), { maxFinishedRuns: 3 }),
  ],
  [
    "SQLite",
    async () => {
      const store = SqliteStore.open(join(await tempDir(), "s.db"), { maxFinishedRuns: 3 });
      cleanup.push(() => store.close());
      return store.statusStore;
    },
  ],
];

describe.each(stores)("reapStale (%s)", (_name, open) => {
  it("marks runs whose lease expired failed/abandoned, returns them, and makes them evictable", async () => {
    const store = await open();
    const now = 100_000;
    await store.save(
      record("dead", { ownerId: "w1", heartbeatAt: 40_000, leaseUntil: 70_000, updatedAt: 40_000 }),
    );
    await store.save(
      record("alive", { ownerId: "w2", heartbeatAt: 95_000, leaseUntil: 125_000, updatedAt: 95_000 }),
    );
    await store.save(record("no-lease-old", { updatedAt: 2_000 }));
    await store.save(
      record("done", { status: "completed", phase: "done", endedAt: 3_000, updatedAt: 3_000 }),
    );
    const reaped = await store.reapStale?.({ olderThanMs: 10_000, now });
    expect(reaped?.map((r) => r.runId).sort()).toEqual(["dead", "no-lease-old"]);
    for (const r of reaped ?? []) {
      expect(r).toMatchObject({ status: "failed", phase: "done", activeToolCalls: [], endedAt: now });
      expect(r.error?.code).toBe("abandoned");
      expect(r.error?.message).toContain(r.runId);
    }
    expect((await store.get("dead"))?.error?.details).toMatchObject({ ownerId: "w1" });
    expect((await store.list({ active: true })).map((r) => r.runId)).toEqual(["alive"]);
    // A reaped record is final: a late save of the dead run cannot make it running again.
    await store.save(record("dead", { updatedAt: now + 1 }));
    expect((await store.get("dead"))?.status).toBe("failed");
    // Nothing more to reap; a second call changes nothing.
    expect(await store.reapStale?.({ olderThanMs: 10_000, now })).toEqual([]);
    // Evictable: finished runs beyond maxFinishedRuns (3) go, oldest finished first.
    for (const id of ["f1", "f2", "f3"]) {
      await store.save(
        record(id, { status: "completed", phase: "done", endedAt: now + 10, updatedAt: now + 10 }),
      );
    }
    const left = (await store.list()).map((r) => r.runId).sort();
    expect(left).toEqual(["alive", "f1", "f2", "f3"]);
  });

  it("rejects a missing or negative olderThanMs", async () => {
    const store = await open();
    await expect(store.reapStale?.({ olderThanMs: -1 })).rejects.toMatchObject({ code: "validation" });
  });
});

describe("a SIGKILLed run", () => {
  it("stays running until reapStale marks it abandoned", async () => {
    const db = join(await tempDir(), "cli.db");
    const child = spawn(
      process.execPath,
      ["--import", join(fixtures, "register-ts.mjs"), join(fixtures, "leased-run.ts"), db, "killed-run"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    expect(first.value, stderr).toBe("running");
    const store = SqliteStore.open(db);
    cleanup.push(() => store.close());
    const before = await store.statusStore.get("killed-run");
    expect(before).toMatchObject({ status: "running", ownerId: "child-1" });
    // The heartbeat keeps renewing the lease while the tool hangs.
    let renewed = before;
    for (let i = 0; i < 100 && renewed?.leaseUntil === before?.leaseUntil; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      renewed = await store.statusStore.get("killed-run");
    }
    expect(renewed?.leaseUntil).toBeGreaterThan(before?.leaseUntil ?? 0);
    child.kill("SIGKILL");
    await exited;
    // Still "running" (nobody can tell yet) until the lease is over.
    expect((await store.statusStore.get("killed-run"))?.status).toBe("running");
    const leaseUntil = (await store.statusStore.get("killed-run"))?.leaseUntil ?? 0;
    expect(await store.statusStore.reapStale({ olderThanMs: 0, now: leaseUntil - 1 })).toEqual([]);
    const reaped = await store.statusStore.reapStale({ olderThanMs: 0, now: leaseUntil + 1 });
    expect(reaped.map((r) => [r.runId, r.status, r.error?.code])).toEqual([
      ["killed-run", "failed", "abandoned"],
    ]);
    expect(await store.statusStore.list({ active: true })).toEqual([]);
  }, 60_000);
});
