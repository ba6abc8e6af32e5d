import { type AgentObservation, type HarnessEventJournal, InMemoryEventJournal } from "@tinyagents/harness";
import { describe, expect, it } from "vitest";
import { JournalLanes, laneIndex } from "./journal-lanes.js";

const record = (runId: string, offset: number): AgentObservation => ({
  id: `${runId}-evt-${offset}`,
  offset,
  ts: 1000 + offset,
  runId,
  rootRunId: runId,
  depth: 0,
  event: { type: "state.updated", step: 0, messages: 1 },
});

/** A journal whose writes wait until `open()` is called (a write in flight on a slow database). */
function gated(inner: InMemoryEventJournal): {
  journal: HarnessEventJournal;
  open: () => void;
  writes: () => number;
} {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let writes = 0;
  const journal: HarnessEventJournal = {
    append: (o) => journal.appendMany([o]),
    appendMany: async (records) => {
      writes++;
      await gate;
      await inner.appendMany(records);
    },
    read: (root, query) => inner.read(root, query),
    replay: (root, from, listener) => inner.replay(root, from, listener),
    rootRuns: () => inner.rootRuns(),
  };
  return { journal, open, writes: () => writes };
}

/** The first of `run-0`, `run-1`, ... that `laneIndex` puts on `lane` of `count`. */
function runOnLane(lane: number, count: number): string {
  for (let i = 0; ; i++) if (laneIndex(`run-${i}`, count) === lane) return `run-${i}`;
}

describe("JournalLanes", () => {
  it("puts a run id on the same lane every time and spreads run ids over every lane", () => {
    const ids = Array.from({ length: 200 }, (_, i) => `chaos-${i}`);
    const first = ids.map((id) => laneIndex(id, 4));
    expect(ids.map((id) => laneIndex(id, 4))).toEqual(first);
    for (let lane = 0; lane < 4; lane++) {
      expect(first.filter((l) => l === lane).length).toBeGreaterThan(25);
    }
    expect(ids.every((id) => laneIndex(id, 1) === 0)).toBe(true);
  });

  it("a run on one lane is journaled while another lane's write is still in flight", async () => {
    const slowStore = new InMemoryEventJournal();
    const slow = gated(slowStore);
    const fast = new InMemoryEventJournal();
    const lanes = new JournalLanes([slow.journal, fast]);
    expect(lanes.size).toBe(2);
    const stuckRun = runOnLane(0, 2);
    const freeRun = runOnLane(1, 2);

    const stuck = lanes.laneOf(stuckRun).appendMany([record(stuckRun, 0)]);
    let stuckDone = false;
    void stuck.then(() => {
      stuckDone = true;
    });
    await lanes.laneOf(freeRun).appendMany([record(freeRun, 0), record(freeRun, 1)]);

    expect((await fast.read(freeRun)).map((r) => r.offset)).toEqual([0, 1]);
    expect(slow.writes()).toBe(1);
    expect(stuckDone).toBe(false);
    slow.open();
    await stuck;
    expect((await slowStore.read(stuckRun)).map((r) => r.offset)).toEqual([0]);
  });

  it("keeps one run's records in order on its lane across writes", async () => {
    const store = new InMemoryEventJournal();
    const lanes = new JournalLanes([store, new InMemoryEventJournal(), new InMemoryEventJournal()]);
    const runId = runOnLane(0, 3);
    const lane = lanes.laneOf(runId);
    expect(lanes.laneOf(runId)).toBe(lane);
    await Promise.all([lane.appendMany([record(runId, 0)]), lane.appendMany([record(runId, 1)])]);
    await lane.appendMany([record(runId, 2)]);
    expect((await store.read(runId)).map((r) => r.offset)).toEqual([0, 1, 2]);
  });
});
