/**
 * Issue 17 item 5: a resumed run continues its run tree's journal offsets and event ids instead
 * of restarting at 0, and a second concurrent writer of one run tree is refused (`conflict`)
 * instead of being interleaved.
 */
import { join } from "node:path";
import {
  AgentHarness,
  type AgentObservation,
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  type HarnessEventJournal,
  InMemoryEventJournal,
  type Middleware,
  SteeringHandle,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { JsonlAppendLog } from "@tinyagents/harness/node";
import { continueEventSink } from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import { DeterministicClock, DeterministicIds, FakeTool, ScriptedModel } from "@tinyagents/harness/testkit";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir } from "./support/temp-dir.js";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn();
});

const SCRIPT = [
  { toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "a" } }] },
  { toolCalls: [{ id: "c2", name: "lookup", arguments: { q: "b" } }] },
  "answer",
];

function harness(pauseAfterModelCall?: number) {
  const h = new AgentHarness<undefined, undefined>({
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
  });
  h.registerModel("m", new ScriptedModel(SCRIPT));
  h.registerTool(FakeTool.of("lookup", () => "found"));
  if (pauseAfterModelCall !== undefined) {
    let calls = 0;
    const pause: Middleware<undefined, undefined> = {
      name: "pause",
      afterModel: (ctx) => {
        if (++calls === pauseAfterModelCall) ctx.run.steering?.pauseWith("check");
      },
    };
    h.use(pause);
  }
  return h;
}

const backends: [string, () => Promise<HarnessEventJournal>][] = [
  ["in memory", async () => new InMemoryEventJournal()],
  [
    "SQLite",
    async () => {
      const store = SqliteStore.open(join(await tempDir(cleanup, "tinyagents-continuity-"), "t.db"));
      cleanup.push(() => store.close());
      return new AppendLogEventJournal(store.appendLog);
    },
  ],
  [
    "JSONL",
    async () => {
      const log = new JsonlAppendLog(await tempDir(cleanup, "tinyagents-continuity-"));
      cleanup.push(() => log.close());
      return new AppendLogEventJournal(log);
    },
  ],
];

function assertContinuous(records: AgentObservation[]): void {
  const offsets = records.map((r) => r.offset);
  expect(new Set(offsets).size).toBe(offsets.length);
  for (let i = 1; i < offsets.length; i++) expect(offsets[i]).toBeGreaterThan(offsets[i - 1] as number);
  expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
}

describe("EventSink start offset", () => {
  it("starts offsets and ids at startOffset and only moves forward", () => {
    const sink = new EventSink("root", { startOffset: 7 });
    const seen: AgentObservation[] = [];
    sink.subscribe((r) => seen.push(r));
    const scope = { runId: "root", rootRunId: "root", depth: 0 };
    expect(sink.emit(scope, { type: "run.started", input: 1 })).toBe(7);
    sink.advanceTo(3); // backwards: ignored
    expect(sink.emit(scope, { type: "run.started", input: 1 })).toBe(8);
    sink.advanceTo(20);
    expect(sink.emit(scope, { type: "run.started", input: 1 })).toBe(20);
    expect(seen.map((r) => r.id)).toEqual(["root-evt-7", "root-evt-8", "root-evt-20"]);
    expect(() => new EventSink("x", { startOffset: -1 })).toThrow(TinyAgentsError);
    expect(() => sink.advanceTo(1.5)).toThrow(/non-negative integer/);
  });
});

describe.each(backends)("journal continuity (%s)", (_name, open) => {
  it("a run paused in one process and resumed in another keeps one offset sequence", async () => {
    const journal = await open();
    // Process 1: run until the pause, journaled.
    const first = new EventSink("r1");
    const obs1 = attachObservability(first, { journal });
    const paused = await lowerLayer(harness(1)).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "r1" },
      "go",
      {
        events: first,
        steering: SteeringHandle.allowAll(),
      },
    );
    await obs1.close();
    expect(paused.run.stopReason).toBe("interrupted");
    const before = await journal.read("r1");
    expect(paused.run.paused?.eventOffset).toBe((before.at(-1)?.offset ?? -1) + 1);

    // Process 2: a sink that continues the journal.
    const second = await continueEventSink(journal, "r1");
    const obs2 = attachObservability(second, { journal });
    const resumed = await lowerLayer(harness()).resumeCollectingPartial(
      undefined,
      undefined,
      paused.run.paused!,
      {
        events: second,
      },
    );
    await obs2.close();
    expect(resumed.error).toBeUndefined();
    const all = await journal.read("r1");
    expect(all.length).toBeGreaterThan(before.length);
    assertContinuous(all);
    // The default journal leaves bookkeeping events out (journalEvents "essential"): offsets
    // have gaps, and a read from an offset returns the records at or after it.
    expect(await journal.read("r1", { fromOffset: 5 })).toEqual(all.filter((r) => r.offset >= 5));
    expect(await journal.lastOffset?.("r1")).toBe(all.at(-1)?.offset);
  });

  it("a resume given a fresh sink still continues from the paused run's offset", async () => {
    const journal = await open();
    const first = new EventSink("r2");
    const obs1 = attachObservability(first, { journal });
    const paused = await lowerLayer(harness(1)).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "r2" },
      "go",
      {
        events: first,
        steering: SteeringHandle.allowAll(),
      },
    );
    await obs1.close();
    const fresh = new EventSink("r2"); // starts at 0; resume advances it
    const obs2 = attachObservability(fresh, { journal });
    await lowerLayer(harness()).resume(undefined, undefined, paused.run.paused!, { events: fresh });
    await obs2.close();
    assertContinuous(await journal.read("r2"));
  });

  it("refuses a second writer of one run tree with a typed conflict naming the run", async () => {
    const journal = await open();
    const scope = { runId: "r3", rootRunId: "r3", depth: 0 };
    const errors: unknown[] = [];
    const a = new EventSink("r3");
    const b = new EventSink("r3"); // a second writer that did not continue the journal
    const obsA = attachObservability(a, { journal, onError: (e) => errors.push(e) });
    const obsB = attachObservability(b, { journal, onError: (e) => errors.push(e) });
    for (let i = 0; i < 5; i++) a.emit(scope, { type: "run.started", input: i });
    await obsA.flush();
    for (let i = 0; i < 5; i++) b.emit(scope, { type: "run.started", input: 10 + i });
    // Its records were not stored, so its flush does not acknowledge them (issue 37 item 9).
    await expect(obsB.flush()).rejects.toMatchObject({ code: "conflict", details: { runId: "r3" } });
    await obsA.close();
    await obsB.close();
    const conflict = errors.find((e) => TinyAgentsError.isInstance(e) && e.code === "conflict");
    expect(conflict).toBeDefined();
    expect((conflict as TinyAgentsError).details).toMatchObject({ runId: "r3" });
    const stored = await journal.read("r3");
    assertContinuous(stored);
    // The second writer's records were refused, not interleaved.
    expect(
      stored.every((r) => r.event.type !== "run.started" || (r.event as { input: number }).input < 10),
    ).toBe(true);
  });
});

describe("second writer on another SQLite connection", () => {
  it("is refused atomically (check and append are one transaction)", async () => {
    const file = join(await tempDir(cleanup, "tinyagents-continuity-"), "shared.db");
    const s1 = SqliteStore.open(file);
    const s2 = SqliteStore.open(file);
    cleanup.push(
      () => s1.close(),
      () => s2.close(),
    );
    const j1 = new AppendLogEventJournal(s1.appendLog);
    const j2 = new AppendLogEventJournal(s2.appendLog);
    const record = (offset: number): AgentObservation => ({
      id: `t-evt-${offset}`,
      offset,
      ts: offset,
      runId: "t",
      rootRunId: "t",
      depth: 0,
      event: { type: "run.started", input: 0 },
    });
    await j1.appendMany([record(0), record(1), record(2)]);
    // The second connection resumes correctly from the tail: accepted.
    const sink = await continueEventSink(j2, "t");
    expect(sink.offset).toBe(3);
    await j2.appendMany([record(3), record(4)]);
    // The first writer goes on with its own (stale) sequence: refused.
    await expect(j1.appendMany([record(3)])).rejects.toMatchObject({ code: "conflict" });
    const all = await j1.read("t");
    expect(all.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4]);
  });
});
