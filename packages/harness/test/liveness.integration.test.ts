/**
 * Issue 17 item 1: runs carry an owner, a heartbeat and a lease; one shared timer renews the
 * lease while a long call is in flight; `reapStale` marks runs whose process died `failed` /
 * `abandoned` (on every status-store backend: the store conformance suite in the testkit).
 *
 * Budget: about 2 s on 2 cores at load 15 (one SIGKILLed child process; 1.1 s measured with the
 * transpile cache of fixtures/ts-loader.mjs warm, ~4 s cold).
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import {
  AgentHarness,
  attachObservability,
  EventSink,
  InMemoryHarnessStatusStore,
} from "@tinyagents/harness";
import { heartbeatTimerOf, lowerLayer } from "@tinyagents/harness/internal";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, EventRecorder, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp-dir.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

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
      lowerLayer(make()).invoke(undefined, undefined, { runId: "a" }, "go", {
        events: sink,
        durability: { ownerId: "worker-7", leaseMs: 30_000 },
      }),
      lowerLayer(make()).invoke(undefined, undefined, { runId: "b" }, "go", {
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
      lowerLayer(h).invoke(undefined, undefined, {}, "go", { durability: { leaseMs: 0 } }),
    ).rejects.toMatchObject({ code: "validation" });
  });
});

// reapStale on every status store (memory, files, SQLite, Postgres): the HarnessStatusStore
// conformance suite (testkit/store-conformance).

describe("a SIGKILLed run", () => {
  it("stays running until reapStale marks it abandoned", async () => {
    const db = join(await tempDir(cleanup, "tinyagents-liveness-"), "cli.db");
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
