import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentObservation } from "./agent-observation.js";
import { CoalescingJournal } from "./coalescing-journal.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";

const at = (runId: string, offset: number, step = 0): AgentObservation => ({
  id: `${runId}-evt-${offset}`,
  offset,
  ts: 1000 + offset,
  runId,
  rootRunId: runId,
  depth: 0,
  event: { type: "state.updated", step, messages: 1 },
});

/**
 * Counts the wrapped journal's appendMany calls and the records each carried; each write waits
 * for `gate` (open by default).
 */
function counting(
  inner: HarnessEventJournal,
  gate: Promise<void> = Promise.resolve(),
): { journal: HarnessEventJournal; calls: number[] } {
  const calls: number[] = [];
  const journal: HarnessEventJournal = {
    append: (o) => inner.append(o),
    appendMany: async (records) => {
      calls.push(records.length);
      await gate;
      await inner.appendMany(records);
    },
    read: (root, query) => inner.read(root, query),
    replay: (root, from, listener) => inner.replay(root, from, listener),
    rootRuns: () => inner.rootRuns(),
  };
  return { journal, calls };
}

/**
 * Like the Postgres/SQLite journals after a refused group commit: writes every run tree of a
 * batch alone, then throws the first conflict (the other trees are stored).
 */
function treeByTree(inner: InMemoryEventJournal): HarnessEventJournal {
  return {
    append: (o) => inner.append(o),
    appendMany: async (records) => {
      const roots = [...new Set(records.map((r) => r.rootRunId))];
      let conflict: unknown;
      for (const root of roots) {
        try {
          await inner.appendMany(records.filter((r) => r.rootRunId === root));
        } catch (error) {
          conflict ??= error;
        }
      }
      if (conflict !== undefined) throw conflict;
    },
    read: (root, query) => inner.read(root, query),
    replay: (root, from, listener) => inner.replay(root, from, listener),
    rootRuns: () => inner.rootRuns(),
  };
}

describe("CoalescingJournal", () => {
  it("merges the appends of many runs made in one turn into one write, each run's records in order", async () => {
    const store = new InMemoryEventJournal();
    const { journal, calls } = counting(store);
    const shared = new CoalescingJournal(journal);
    await Promise.all(["a", "b", "c"].map((run) => shared.appendMany([at(run, 0), at(run, 1), at(run, 2)])));
    expect(calls).toEqual([9]);
    for (const run of ["a", "b", "c"]) {
      expect((await shared.read(run)).map((r) => r.offset)).toEqual([0, 1, 2]);
    }
  });

  it("what arrives while a write is in flight becomes the next merged write", async () => {
    const store = new InMemoryEventJournal();
    let open = () => {};
    const { journal, calls } = counting(store, new Promise<void>((resolve) => (open = resolve)));
    const shared = new CoalescingJournal(journal);
    const first = shared.appendMany([at("a", 0)]);
    // The write starts at the end of this turn; then it waits on the closed gate.
    while (calls.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const later = ["b", "c"].map((run) => shared.appendMany([at(run, 0)]));
    open();
    await Promise.all([first, ...later]);
    expect(calls).toEqual([1, 2]);
  });

  it("a writer answered by one write hands its next records into the very next write", async () => {
    const store = new InMemoryEventJournal();
    let open = () => {};
    const { journal, calls } = counting(store, new Promise<void>((resolve) => (open = resolve)));
    const shared = new CoalescingJournal(journal);
    // Run a writes one batch at a time, as a run's journal sink does.
    const a = shared.appendMany([at("a", 0)]).then(() => shared.appendMany([at("a", 1)]));
    while (calls.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const b = shared.appendMany([at("b", 0)]); // queued while a's first write is in flight
    open();
    await Promise.all([a, b]);
    expect(calls).toEqual([1, 2]); // b's record and a's second one together, not one write each
  });

  it("a conflicting run tree rejects only its own caller; the others are stored once", async () => {
    for (const wrap of [(s: InMemoryEventJournal) => s, treeByTree]) {
      const store = new InMemoryEventJournal();
      await store.appendMany([at("b", 0, 1), at("b", 1, 1)]); // the first writer's
      const shared = new CoalescingJournal(wrap(store));
      const outcomes = await Promise.allSettled([
        shared.appendMany([at("a", 0), at("a", 1)]),
        shared.appendMany([at("b", 1, 2)]), // a second writer of run b
        shared.appendMany([at("c", 0)]),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const refused = (outcomes[1] as PromiseRejectedResult).reason;
      expect(TinyAgentsError.isInstance(refused) && refused.code).toBe("conflict");
      expect((await store.read("a")).map((r) => r.offset)).toEqual([0, 1]);
      expect((await store.read("b")).map((r) => r.event)).toEqual([at("b", 0, 1).event, at("b", 1, 1).event]);
      expect((await store.read("c")).map((r) => r.offset)).toEqual([0]);
    }
  });
});
