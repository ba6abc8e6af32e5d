/**
 * Issue 32 item 4: the supervisor (`superviseRuns`, `startSupervisor`) recovers every dead root
 * run of a store with the agent it recorded, reaps the ones no agent here can recover, leaves
 * live and finished runs alone, bounds its concurrency, and two supervisors racing over one
 * store recover each run exactly once. Dead runs hang on a virtual clock that never moves (see
 * durable-runs.test.ts).
 */
import {
  CheckpointStore,
  InMemoryHarnessStatusStore,
  InMemoryKeyValueStore,
  type RecoveringAgent,
  startSupervisor,
  superviseRuns,
} from "@tinyagents/harness";
import { conformanceStatus, DeterministicClock } from "@tinyagents/harness/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { agent, type Ledger, SCRIPT, until } from "./durable-helpers.js";

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Start run `runId` of agent `name` in a process that dies inside tool c1. */
async function deadRun(store: CheckpointStore, ledger: Ledger, runId: string, name?: string) {
  const stop = new AbortController();
  cleanup.push(() => stop.abort());
  const { h } = agent(ledger, SCRIPT, { tool: "c1" });
  void h
    .run("go", {
      runId,
      signal: stop.signal,
      clock: new DeterministicClock({ start: 0 }),
      durable: {
        store,
        ownerId: `dead-${runId}`,
        leaseMs: 1_000,
        ...(name === undefined ? {} : { agent: name }),
      },
    })
    .catch(() => undefined);
  await until(() => ledger.some((e) => e.key === `${runId}:c1`), `${runId} inside its tool`);
}

/** An agent that recovers runs, counting how many recoveries run at once. */
function countingAgent(ledger: Ledger, inFlight: { now: number; max: number }): RecoveringAgent {
  return {
    recover: async (runId, options) => {
      inFlight.now++;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      try {
        return await agent(ledger, SCRIPT.slice(1)).h.recover(runId, options as never);
      } finally {
        inFlight.now--;
      }
    },
  };
}

describe("superviseRuns", () => {
  it("recovers dead runs with their agent, reaps the unknown, leaves live and finished runs alone", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: Ledger = [];
    for (const runId of ["a1", "a2", "a3"]) await deadRun(store, ledger, runId, "a");
    await deadRun(store, ledger, "orphan");
    await agent(ledger, SCRIPT).h.run("go", { runId: "finished", durable: { store, agent: "a" } });
    const later = new DeterministicClock({ start: 1_000_000 });
    const live = await store.take({
      runId: "live",
      mode: "start",
      ownerId: "alive",
      leaseMs: 60_000,
      now: later.now(),
    });
    const statusStore = new InMemoryHarnessStatusStore();
    await statusStore.save(conformanceStatus("orphan", { ownerId: "dead-orphan", epoch: 1 }));
    const inFlight = { now: 0, max: 0 };

    const report = await superviseRuns({
      store,
      agents: { a: countingAgent(ledger, inFlight) },
      clock: later,
      concurrency: 2,
      ownerId: "sup",
      statusStore,
    });

    expect(report.recovered.map((r) => r.runId).sort()).toEqual(["a1", "a2", "a3"]);
    expect(report.recovered.every((r) => r.agent === "a" && r.stopReason === "completed")).toBe(true);
    expect([report.reaped, report.failed, report.skipped]).toEqual([["orphan"], [], []]);
    expect(inFlight.max).toBe(2);
    for (const runId of ["a1", "a2", "a3"])
      expect(await store.record(runId)).toMatchObject({ state: "completed", ownerId: "sup", epoch: 2 });
    expect(await store.record("orphan")).toMatchObject({
      state: "failed",
      outcome: { errorCode: "abandoned" },
    });
    expect(await statusStore.get("orphan")).toMatchObject({
      status: "failed",
      epoch: 2,
      error: { code: "abandoned" },
    });
    expect(await store.record("live")).toMatchObject({
      state: "running",
      ownerId: "alive",
      epoch: live.epoch,
    });
    expect((await store.record("finished"))?.epoch).toBe(1);
    // Each recovered run's once tool ran once; its at-least-once tool twice, with one key.
    for (const runId of ["a1", "a2", "a3"]) {
      expect(ledger.filter((e) => e.key === `${runId}:c2`)).toHaveLength(1);
      expect(ledger.filter((e) => e.key === `${runId}:c1`)).toHaveLength(2);
    }
  });

  it("a pass reads the live runs only, however many finished runs the store keeps; finished records are compact", async () => {
    const kv = new InMemoryKeyValueStore();
    const reads = { get: 0, lists: [] as string[] };
    const counting = Object.create(kv) as InMemoryKeyValueStore;
    counting.get = (namespace, key) => {
      reads.get++;
      return kv.get(namespace, key);
    };
    counting.list = (namespace) => {
      reads.lists.push(namespace);
      return kv.list(namespace);
    };
    const store = new CheckpointStore(counting);
    const input = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];
    for (let i = 0; i < 500; i++) {
      const runId = `done-${String(i).padStart(3, "0")}`;
      const lease = await store.take({
        runId,
        mode: "start",
        ownerId: "w",
        leaseMs: 1_000,
        now: 0,
        start: { input, config: {} },
      });
      await lease.renew(10);
      await lease.finish("completed", { stopReason: "completed" }, 20);
    }
    for (const runId of ["dead-1", "dead-2"]) {
      await store.take({
        runId,
        mode: "start",
        ownerId: "gone",
        leaseMs: 1_000,
        now: 0,
        start: { input, config: {} },
      });
    }
    const finished = await kv.get(store.namespace, "done-000");
    expect(finished).toMatchObject({ state: "completed", outcome: { stopReason: "completed" } });
    expect(finished).not.toHaveProperty("start");
    expect(finished).not.toHaveProperty("checkpoint");
    expect(await kv.list(store.leasesNamespace)).toEqual(["dead-1", "dead-2"]);

    reads.get = 0;
    reads.lists = [];
    const report = await superviseRuns({
      store,
      unknownAgent: "skip",
      clock: new DeterministicClock({ start: 10_000 }),
    });
    expect(report.skipped.map((s) => s.runId)).toEqual(["dead-1", "dead-2"]);
    expect(reads.lists).toEqual([store.liveNamespace]);
    // A record and its lease key per live run: 4 reads, not 500+.
    expect(reads.get).toBeLessThanOrEqual(4);
  });

  it("two supervisors racing over one store recover each dead run exactly once", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: Ledger = [];
    const runs = ["r1", "r2", "r3", "r4", "r5"];
    for (const runId of runs) await deadRun(store, ledger, runId, "a");
    const supervise = (ownerId: string) =>
      superviseRuns({
        store,
        agents: { a: countingAgent(ledger, { now: 0, max: 0 }) },
        clock: new DeterministicClock({ start: 1_000_000 }),
        ownerId,
      });
    const [one, two] = await Promise.all([supervise("s1"), supervise("s2")]);
    const recovered = [...one.recovered, ...two.recovered].map((r) => r.runId).sort();
    expect(recovered).toEqual(runs);
    expect([...one.skipped, ...two.skipped]).toHaveLength(runs.length);
    for (const runId of runs) expect(ledger.filter((e) => e.key === `${runId}:c2`)).toHaveLength(1);
  });

  it("startSupervisor passes at boot and on its interval, and stops", async () => {
    const store = new CheckpointStore(new InMemoryKeyValueStore());
    const ledger: Ledger = [];
    await deadRun(store, ledger, "boot", "a");
    const clock = new DeterministicClock({ start: 1_000_000, autoAdvance: false });
    const supervisor = startSupervisor({
      store,
      agents: { a: countingAgent(ledger, { now: 0, max: 0 }) },
      clock,
      intervalMs: 5_000,
    });
    await until(() => supervisor.lastReport.recovered.length === 1, "the boot pass");
    await deadRun(store, ledger, "tick", "a");
    clock.advance(5_000);
    await until(() => supervisor.lastReport.recovered[0]?.runId === "tick", "the interval pass");
    await supervisor.stop();
    expect((await store.record("tick"))?.state).toBe("completed");
  });
});
