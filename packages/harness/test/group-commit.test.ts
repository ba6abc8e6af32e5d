/**
 * Group commit of the persistence writers (issue 21): the journal and the status store write
 * once per event-loop turn (one SQLite transaction for a whole scripted run), status saves are
 * coalesced to one per run per batch, streamed deltas are journaled as the first delta plus one
 * merged record per model call (all of them on opt-in), `flush()` acknowledges, and a clean
 * `close()` loses nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentHarness,
  type AgentObservation,
  type AppendLog,
  AppendLogEventJournal,
  attachObservability,
  EventSink,
  type HarnessRunStatus,
  type HarnessStatusStore,
  runText,
} from "@tinyagents/harness";
import { lowerLayer } from "@tinyagents/harness/internal";
import { rebuildProjections } from "@tinyagents/harness/observability";
import { SqliteStore } from "@tinyagents/harness/sqlite";
import type { AppendGroup } from "@tinyagents/harness/store";
import {
  type ChatModel,
  type JsonValue,
  type ModelStreamItem,
  usage as makeUsage,
} from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-group-commit-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const usage = makeUsage({ inputTokens: 3, outputTokens: 2 });

/** A model that streams `pieces` text deltas (or answers `invoke` with their concatenation). */
function streamingModel(pieces: readonly string[]): ChatModel {
  return {
    provider: "test",
    modelId: "pieces",
    async invoke() {
      return {
        message: { role: "assistant", content: [{ type: "text", text: pieces.join("") }], toolCalls: [] },
        usage,
        finishReason: "stop",
      };
    },
    async *stream(): AsyncGenerator<ModelStreamItem> {
      yield { type: "start" };
      for (const text of pieces) yield { type: "text_delta", text };
      yield { type: "usage", usage };
      yield { type: "finish", finishReason: "stop" };
    },
  };
}

const textOf = (observations: AgentObservation[]) =>
  observations
    .filter((o) => o.event.type === "model.text_delta")
    .map((o) => (o.event as { text: string }).text)
    .join("");

/** Counts the writes reaching an append log (each `appendMany`/`appendGroups` is one transaction). */
function countingLog(log: AppendLog): { log: AppendLog; writes: () => number } {
  let writes = 0;
  const counted: AppendLog = {
    append: (stream, value) => {
      writes++;
      return log.append(stream, value);
    },
    appendMany: (stream, values) => {
      writes++;
      return log.appendMany(stream, values);
    },
    appendGroups: (groups: readonly AppendGroup[]) => {
      writes++;
      return (log.appendGroups as NonNullable<AppendLog["appendGroups"]>).call(log, groups);
    },
    readFrom: (stream, offset, limit) => log.readFrom(stream, offset, limit),
    length: (stream) => log.length(stream),
    listStreams: () => log.listStreams(),
  };
  return { log: counted, writes: () => writes };
}

/** Counts status writes (a `saveMany` batch is one transaction) and records what was saved. */
function countingStatusStore(store: HarnessStatusStore): {
  store: HarnessStatusStore;
  writes: () => number;
  saved: HarnessRunStatus[];
} {
  let writes = 0;
  const saved: HarnessRunStatus[] = [];
  return {
    store: {
      save: (status) => {
        writes++;
        saved.push(status);
        return store.save(status);
      },
      saveMany: (statuses) => {
        writes++;
        saved.push(...statuses);
        return (store.saveMany as NonNullable<HarnessStatusStore["saveMany"]>).call(store, statuses);
      },
      get: (runId) => store.get(runId),
      list: (query) => store.list(query),
      delete: (runId) => store.delete(runId),
    },
    writes: () => writes,
    saved,
  };
}

describe("group commit (SQLite, wired as the CLI wires it)", () => {
  it("journals a whole run in one transaction and saves its status once per batch", async () => {
    const sqlite = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      const counted = countingLog(sqlite.appendLog);
      const status = countingStatusStore(sqlite.statusStore);
      const journal = new AppendLogEventJournal(counted.log, { streamPrefix: "journal-" });
      const harness = new AgentHarness().registerModel("m", streamingModel(["Hel", "lo"]));
      const events = new EventSink("run-1");
      // journalEvents "all": every event is journaled, so offsets are dense (the default leaves
      // bookkeeping events out; see journal-events.test.ts).
      const obs = attachObservability(events, { journal, statusStore: status.store, journalEvents: "all" });
      const run = await lowerLayer(harness).invoke(undefined, undefined, { runId: "run-1" }, "hi", {
        events,
      });
      await obs.close();
      expect(runText(run)).toBe("Hello");

      const journaled = await journal.read("run-1");
      expect(journaled.length).toBeGreaterThan(5); // run.started ... run.completed
      expect(journaled.map((o) => o.offset)).toEqual([...journaled.keys()]); // every event, in order
      // The run completed inside one event-loop turn: one write for all its events, one for the
      // statuses (not one transaction per event and one per status change).
      expect(counted.writes()).toBe(1);
      expect(status.writes()).toBe(1);
      expect(status.saved.map((s) => s.status)).toEqual(["completed"]);
      expect((await sqlite.statusStore.get("run-1"))?.status).toBe("completed");
    } finally {
      sqlite.close();
    }
  });

  it("writes the events of several concurrent run trees of one turn in one transaction", async () => {
    const sqlite = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      const counted = countingLog(sqlite.appendLog);
      const journal = new AppendLogEventJournal(counted.log);
      const harness = new AgentHarness().registerModel("m", streamingModel(["a"]));
      const runs = ["t1", "t2", "t3"].map(async (runId) => {
        const events = new EventSink(runId);
        const obs = attachObservability(events, { journal });
        await lowerLayer(harness).invoke(undefined, undefined, { runId }, "hi", { events });
        return obs;
      });
      const handles = await Promise.all(runs);
      for (const obs of handles) await obs.close();
      expect(counted.writes()).toBeLessThanOrEqual(3);
      for (const runId of ["t1", "t2", "t3"]) {
        const types = (await journal.read(runId)).map((o) => o.event.type);
        expect(types[0]).toBe("run.started");
        expect(types.at(-1)).toBe("run.completed");
      }
    } finally {
      sqlite.close();
    }
  });

  it("saves only the latest status of a run changed many times in one turn", async () => {
    const sqlite = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      const status = countingStatusStore(sqlite.statusStore);
      const events = new EventSink("r");
      const obs = attachObservability(events, { statusStore: status.store });
      const scope = { runId: "r", rootRunId: "r", depth: 0 };
      events.emit(scope, { type: "run.started", input: 1 });
      for (let step = 0; step < 50; step++)
        events.emit(scope, { type: "state.updated", step, messages: step });
      events.emit(scope, {
        type: "run.failed",
        error: { name: "ProviderError", code: "provider", message: "boom" },
      });
      await obs.flush();
      expect(status.writes()).toBe(1);
      expect(status.saved.map((s) => s.status)).toEqual(["failed"]);
      expect((await sqlite.statusStore.get("r"))?.status).toBe("failed");
      obs.detach();
    } finally {
      sqlite.close();
    }
  });
});

describe("status records handed to the store", () => {
  /** A status store that keeps what it was handed, declaring `snapshotsOnSave` or not. */
  function keepingStore(snapshotsOnSave: boolean) {
    const saved: HarnessRunStatus[] = [];
    const store: HarnessStatusStore = {
      ...(snapshotsOnSave ? { snapshotsOnSave: true } : {}),
      save: async (status) => {
        saved.push(status);
      },
      saveMany: async (statuses) => {
        saved.push(...statuses);
      },
      get: async () => undefined,
      list: async () => [],
      delete: async () => false,
    };
    return { store, saved };
  }

  it("a store that snapshots on save gets the live record (no copy); any other store a copy", async () => {
    for (const snapshots of [true, false]) {
      const { store, saved } = keepingStore(snapshots);
      const events = new EventSink("r");
      const obs = attachObservability(events, { statusStore: store });
      const scope = { runId: "r", rootRunId: "r", depth: 0 };
      events.emit(scope, { type: "run.started", input: 1 });
      await obs.flush();
      expect(saved.map((s) => s.status)).toEqual(["running"]);
      events.emit(scope, {
        type: "run.failed",
        error: { name: "ProviderError", code: "provider", message: "boom" },
      });
      await obs.flush();
      // The live record moved on with the run; a copy kept the state it was saved in.
      expect(saved.map((s) => s.status)).toEqual(snapshots ? ["failed", "failed"] : ["running", "failed"]);
      obs.detach();
    }
  });

  it("the SQLite store saves a record as it was when save was called, not as changed after", async () => {
    const sqlite = SqliteStore.open(join(dir, "db.sqlite"));
    try {
      expect(sqlite.statusStore.snapshotsOnSave).toBe(true);
      const events = new EventSink("r");
      const obs = attachObservability(events, {});
      events.emit({ runId: "r", rootRunId: "r", depth: 0 }, { type: "run.started", input: 1 });
      const record = obs.projections.status.get("r") as HarnessRunStatus;
      const saving = sqlite.statusStore.saveMany([record]);
      // Changed in the same turn, before the group commit writes it.
      record.status = "failed";
      record.updatedAt += 1;
      await saving;
      expect((await sqlite.statusStore.get("r"))?.status).toBe("running");
      obs.detach();
    } finally {
      sqlite.close();
    }
  });
});

describe("journaled deltas", () => {
  const pieces = Array.from({ length: 100 }, (_, i) => `p${i} `);

  async function streamRun(journalDeltas?: "coalesce" | "all") {
    const sqlite = SqliteStore.open(join(dir, `deltas-${journalDeltas ?? "default"}.sqlite`));
    const journal = new AppendLogEventJournal(sqlite.appendLog);
    const harness = new AgentHarness().registerModel("m", streamingModel(pieces));
    const events = new EventSink("s");
    const obs = attachObservability(events, {
      journal,
      ...(journalDeltas === undefined ? {} : { journalDeltas }),
    });
    let live = 0;
    for await (const item of lowerLayer(harness).invokeStreaming(undefined, undefined, { runId: "s" }, "hi", {
      events,
    })) {
      if (item.type === "event" && item.record.event.type === "model.text_delta") live++;
    }
    await obs.close();
    const journaled = await journal.read("s");
    const timing = (await rebuildProjections(journal, "s")).timing.value.s;
    sqlite.close();
    return { live, journaled, timing };
  }

  it("by default stores the first delta and one merged record per model call, losing no text", async () => {
    const { live, journaled, timing } = await streamRun();
    expect(live).toBe(100);
    const deltas = journaled.filter((o) => o.event.type === "model.text_delta");
    expect(deltas.map((o) => o.event)).toEqual([
      { type: "model.text_delta", callId: expect.any(String), text: "p0 " },
      {
        type: "model.text_delta",
        callId: expect.any(String),
        text: pieces.slice(1).join(""),
        deltas: 99,
      },
    ]);
    expect(textOf(journaled)).toBe(pieces.join(""));
    // The merged record sits where its first delta was: before model.completed, offsets increasing.
    const types = journaled.map((o) => o.event.type);
    expect(types.indexOf("model.completed")).toBeGreaterThan(types.lastIndexOf("model.text_delta"));
    const offsets = journaled.map((o) => o.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    // The first token is still visible to projections rebuilt from the journal.
    expect(timing?.firstTokenMs).toBeTypeOf("number");
  });

  it('stores every delta as its own record with journalDeltas: "all"', async () => {
    const { journaled } = await streamRun("all");
    const deltas = journaled.filter((o) => o.event.type === "model.text_delta");
    expect(deltas).toHaveLength(100);
    expect(deltas.every((o) => !("deltas" in o.event))).toBe(true);
    expect(textOf(journaled)).toBe(pieces.join(""));
  });

  it("rejects an unknown journalDeltas mode with a validation error", () => {
    const journal = new AppendLogEventJournal({} as AppendLog);
    expect(() =>
      attachObservability(new EventSink("x"), {
        journal,
        journalDeltas: "none" as unknown as "all",
      }),
    ).toThrow(/deltas must be "coalesce" or "all"/);
  });
});

describe("clean close", () => {
  it("loses nothing: every event, the whole streamed text and the final statuses are on disk after close()", async () => {
    const file = join(dir, "close.sqlite");
    const pieces = Array.from({ length: 30 }, (_, i) => `${i},`);
    const sqlite = SqliteStore.open(file);
    const journal = new AppendLogEventJournal(sqlite.appendLog, { streamPrefix: "journal-" });
    const harness = new AgentHarness().registerModel("m", streamingModel(pieces));
    const emitted = new Map<string, number>();
    const handles = [];
    for (const runId of ["c1", "c2", "c3", "c4"]) {
      const events = new EventSink(runId);
      events.subscribe(() => emitted.set(runId, (emitted.get(runId) ?? 0) + 1));
      const obs = attachObservability(events, {
        journal,
        statusStore: sqlite.statusStore,
        journalEvents: "all", // every emitted event is accounted for below
      });
      // Stream without awaiting the end: close() must write what is still queued or merged.
      const stream = lowerLayer(harness).invokeStreaming(undefined, undefined, { runId }, "hi", { events });
      for await (const _ of stream) {
        // drain
      }
      handles.push(obs);
    }
    // A model call still streaming at close: its merged text must be written too.
    const open = new EventSink("c5");
    const openObs = attachObservability(open, { journal, statusStore: sqlite.statusStore });
    const scope = { runId: "c5", rootRunId: "c5", depth: 0 };
    open.emit(scope, { type: "run.started", input: 1 });
    for (const text of ["un", "fin", "ished"])
      open.emit(scope, { type: "model.text_delta", callId: "k", text });
    handles.push(openObs);
    for (const obs of handles) await obs.close();
    sqlite.close();

    const reopened = SqliteStore.open(file);
    try {
      const rejournal = new AppendLogEventJournal(reopened.appendLog, { streamPrefix: "journal-" });
      for (const runId of ["c1", "c2", "c3", "c4"]) {
        const journaled = await rejournal.read(runId);
        const merged = journaled.reduce(
          (n, o) =>
            n + (o.event.type === "model.text_delta" ? ((o.event as { deltas?: number }).deltas ?? 1) : 0),
          0,
        );
        const others = journaled.filter((o) => o.event.type !== "model.text_delta").length;
        expect(merged + others).toBe(emitted.get(runId)); // every emitted event is accounted for
        expect(textOf(journaled)).toBe(pieces.join(""));
        expect((await reopened.statusStore.get(runId))?.status).toBe("completed");
      }
      const unfinished = await rejournal.read("c5");
      expect(unfinished.map((o) => o.event.type)).toEqual([
        "run.started",
        "model.text_delta",
        "model.text_delta",
      ]);
      expect(textOf(unfinished)).toBe("unfinished");
      expect((await reopened.statusStore.get("c5"))?.status).toBe("running");
    } finally {
      reopened.close();
    }
  });
});

describe("AppendLog.appendGroups (SQLite)", () => {
  it("appends to several streams in one transaction with per-stream offsets", async () => {
    const sqlite = SqliteStore.open(join(dir, "groups.sqlite"));
    try {
      await sqlite.appendLog.append("a", 0);
      const groups = sqlite.appendLog.appendGroups;
      expect(groups).toBeTypeOf("function");
      const offsets = await sqlite.appendLog.appendGroups?.([
        { stream: "a", values: [1, 2] },
        { stream: "b", values: [10] },
      ]);
      expect(offsets).toEqual([[1, 2], [0]]);
      const read = async (s: string) =>
        (await sqlite.appendLog.readFrom(s, 0, 10)).map((e) => e.value as JsonValue);
      expect(await read("a")).toEqual([0, 1, 2]);
      expect(await read("b")).toEqual([10]);
      // All or nothing: a value JSON cannot hold fails the whole group, nothing is written.
      await expect(
        sqlite.appendLog.appendGroups?.([
          { stream: "a", values: [3] },
          { stream: "b", values: [undefined as unknown as JsonValue] },
        ]),
      ).rejects.toThrow(/not JSON data/);
      expect(await read("a")).toEqual([0, 1, 2]);
    } finally {
      sqlite.close();
    }
  });
});
