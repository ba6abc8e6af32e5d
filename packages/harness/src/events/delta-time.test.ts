import { systemClock } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { EventRecord, ModelDeltaEvent } from "../contracts/agent-event.js";
import { DELTA_TIME_REUSE } from "./delta-time.js";
import { type EventScope, EventSink } from "./event-sink.js";

const scope: EventScope = { runId: "r", rootRunId: "r", depth: 0 };
const delta = (text: string): ModelDeltaEvent => ({ type: "model.text_delta", callId: "c", text });
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("timestamps of streamed deltas", () => {
  let reads = 0;
  beforeEach(async () => {
    // A fresh turn: nothing read before this test may be reused.
    await nextTurn();
    reads = 0;
    // Each reading of the real clock is one millisecond after the last: shared readings show.
    vi.spyOn(Date, "now").mockImplementation(() => 1000 + ++reads);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function collect(sink: EventSink): EventRecord[] {
    const records: EventRecord[] = [];
    sink.subscribe((record) => records.push(record));
    return records;
  }

  it("read the real clock once per 16 deltas of one event-loop turn, and again in the next turn", async () => {
    for (const sink of [new EventSink("a"), new EventSink("b", { clock: systemClock })]) {
      await nextTurn();
      reads = 0;
      const records = collect(sink);
      for (let i = 0; i < 40; i++) sink.emitDelta(scope, delta(String(i)));
      expect(reads).toBe(3);
      const per = DELTA_TIME_REUSE + 1;
      expect(records.map((r) => r.ts)).toEqual(
        Array.from({ length: 40 }, (_, i) => 1001 + Math.floor(i / per)),
      );
      // Offsets and ids stay one per record.
      expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(records[39]?.id).toBe(`${sink.streamId}-evt-39`);
      await nextTurn();
      sink.emitDelta(scope, delta("later"));
      expect(reads).toBe(4);
      expect(records.at(-1)?.ts).toBe(1004);
    }
  });

  it("read the clock for every other event, and never give a delta an earlier time than the record before it", () => {
    const sink = new EventSink("s");
    const records = collect(sink);
    sink.emitDelta(scope, delta("a"));
    sink.emit(scope, { type: "run.started", input: 1 });
    sink.emitDelta(scope, delta("b"));
    sink.emit(scope, { type: "run.started", input: 2 });
    expect(records.map((r) => r.ts)).toEqual([1001, 1002, 1002, 1003]);
    for (let i = 1; i < records.length; i++) {
      expect(records[i]?.ts).toBeGreaterThanOrEqual(records[i - 1]?.ts ?? 0);
    }
  });

  it("read any other clock for every delta (a sink's own now, a virtual clock)", () => {
    let own = 0;
    const counted = new EventSink("own", { now: () => ++own });
    const byOwn = collect(counted);
    let virtual = 0;
    const clocked = new EventSink("virtual", { clock: { now: () => 50 + ++virtual } });
    const byClock = collect(clocked);
    for (let i = 0; i < 5; i++) {
      counted.emitDelta(scope, delta("x"));
      clocked.emitDelta(scope, delta("x"));
    }
    expect(byOwn.map((r) => r.ts)).toEqual([1, 2, 3, 4, 5]);
    expect(byClock.map((r) => r.ts)).toEqual([51, 52, 53, 54, 55]);
    expect(reads).toBe(0);
  });
});
