import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import type { DropReport } from "./bounded-queue.js";
import { FanOutSink } from "./fan-out-sink.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { JournalSink } from "./journal-sink.js";
import { JsonlSink } from "./jsonl-sink.js";
import { RedactingSink } from "./redacting-sink.js";
import { attachSink } from "./sink.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const scope = { runId: "r", rootRunId: "r", depth: 0 };

describe("JournalSink", () => {
  it("writes through in emission order and flushes", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r");
    const sink = new JournalSink(journal, { batchSize: 3 });
    attachSink(events, sink);
    for (let i = 0; i < 10; i++) events.emit(scope, { type: "state.updated", step: i, messages: i });
    await sink.flush();
    expect((await journal.read("r")).map((o) => o.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sink.dropped).toBe(0);
  });

  it('overflow "wait": a full queue keeps everything, and drain() holds the producer until there is room', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = new InMemoryEventJournal();
    const slow = Object.assign(Object.create(inner) as InMemoryEventJournal, {
      appendMany: async (records: Parameters<InMemoryEventJournal["appendMany"]>[0]) => {
        await gate; // storage slower than the run
        await inner.appendMany(records);
      },
    });
    const events = new EventSink("r");
    const seen: EventRecord[] = [];
    events.subscribe((r) => seen.push(r));
    const sink = new JournalSink(slow, { maxQueue: 4, batchSize: 2, events, overflow: "wait" });
    attachSink(events, sink);
    for (let i = 0; i < 10; i++) events.emit(scope, { type: "state.updated", step: i, messages: i });
    let roomy = false;
    const room = sink.drain().then(() => {
      roomy = true;
    });
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(roomy).toBe(false); // 8 queued behind a write that has not finished: the producer waits
    release();
    await room;
    await sink.flush();
    expect(sink.dropped).toBe(0);
    expect(seen.filter((r) => r.event.type === "journal.dropped")).toEqual([]);
    expect((await inner.read("r")).map((o) => o.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("refuses an unknown overflow mode", () => {
    expect(() => new JournalSink(new InMemoryEventJournal(), { overflow: "block" as "wait" })).toThrow(
      /overflow must be "drop" or "wait"/,
    );
  });

  it("drops beyond its bound and reports the loss as a journal.dropped event, which is journaled", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r");
    const reports: DropReport[] = [];
    const seen: EventRecord[] = [];
    events.subscribe((r) => seen.push(r));
    const sink = new JournalSink(journal, { maxQueue: 4, events, onDrop: (r) => reports.push(r) });
    attachSink(events, sink);
    for (let i = 0; i < 10; i++) events.emit(scope, { type: "state.updated", step: i, messages: i });
    await sink.flush();
    expect(sink.dropped).toBe(6);
    expect(reports).toEqual([
      { sink: "journal", dropped: 6, fromOffset: 4, toOffset: 9, reason: "queue_full", scope },
    ]);
    const dropped = seen.filter((r) => r.event.type === "journal.dropped");
    expect(dropped.map((r) => r.event)).toEqual([
      {
        type: "journal.dropped",
        sink: "journal",
        dropped: 6,
        fromOffset: 4,
        toOffset: 9,
        reason: "queue_full",
      },
    ]);
    expect((await journal.read("r")).map((o) => o.event.type)).toEqual([
      "state.updated",
      "state.updated",
      "state.updated",
      "state.updated",
      "journal.dropped",
    ]);
  });

  it("reports failed writes as drops and keeps going", async () => {
    const errors: unknown[] = [];
    const reports: DropReport[] = [];
    let fail = true;
    const journal = new InMemoryEventJournal();
    const flaky = Object.assign(Object.create(journal) as InMemoryEventJournal, {
      appendMany: async (batch: never[]) => {
        if (fail) throw new Error("disk full");
        return journal.appendMany(batch);
      },
    });
    const sink = new JournalSink(flaky, { onError: (e) => errors.push(e), onDrop: (r) => reports.push(r) });
    const events = new EventSink("r");
    attachSink(events, sink);
    events.emit(scope, { type: "state.updated", step: 0, messages: 0 });
    await sink.flush();
    fail = false;
    events.emit(scope, { type: "state.updated", step: 1, messages: 1 });
    await sink.flush();
    expect(errors).toHaveLength(1);
    expect(reports.map((r) => [r.reason, r.dropped])).toEqual([["write_failed", 1]]);
    expect((await journal.read("r")).map((o) => o.offset)).toEqual([1]);
  });
});

describe("JsonlSink, FanOutSink and RedactingSink", () => {
  it("compose: one redacted JSON line per observation, a throwing sink isolated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tinyagents-jsonl-sink-"));
    dirs.push(dir);
    const file = join(dir, "logs", "events.jsonl");
    const jsonl = new JsonlSink(file);
    const errors: unknown[] = [];
    const broken = {
      write: () => {
        throw new Error("broken sink");
      },
    };
    const pipeline = new RedactingSink(new FanOutSink([broken, jsonl], { onError: (e) => errors.push(e) }));
    const events = new EventSink("r");
    attachSink(events, pipeline);
    events.emit(scope, {
      type: "tool.started",
      callId: "c",
      toolName: "t",
      arguments: { apiKey: "sk-live-123", q: "x" },
    });
    events.emit(scope, { type: "state.updated", step: 0, messages: 1 });
    await pipeline.close();
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] as string).event.arguments).toEqual({ apiKey: "[REDACTED]", q: "x" });
    expect(errors).toHaveLength(2);
  });

  // Linux: /dev/full opens fine but every write fails (ENOSPC); /proc/self/fd lists our open files.
  it.skipIf(!existsSync("/dev/full") || !existsSync("/proc/self/fd"))(
    "JsonlSink closes the file handle of a failed write instead of leaving it to the GC",
    async () => {
      const openFds = () =>
        readdirSync("/proc/self/fd").filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`) === "/dev/full";
          } catch {
            return false; // closed meanwhile (e.g. the fd readdir itself used)
          }
        }).length;
      const before = openFds();
      const errors: unknown[] = [];
      const jsonl = new JsonlSink("/dev/full", { onError: (e) => errors.push(e) });
      const events = new EventSink("r");
      attachSink(events, jsonl);
      events.emit(scope, { type: "state.updated", step: 0, messages: 1 });
      await jsonl.flush();
      expect(jsonl.dropped).toBe(1);
      expect(errors).toHaveLength(1);
      expect(openFds()).toBe(before);
      await jsonl.close();
    },
  );
});
