import { describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "./event-sink.js";

const scope = { runId: "run-1", rootRunId: "run-1", depth: 0 };
const delta = (text: string) => ({ type: "model.text_delta" as const, callId: "call-1", text });
const texts = (records: EventRecord[]) =>
  records.map((r) => (r.event.type === "model.text_delta" ? r.event.text : r.event.type));

describe("EventSink listeners", () => {
  it("a sole listener gets every record in order, with its offset and id", () => {
    const sink = new EventSink("s", { now: () => 7 });
    const seen: EventRecord[] = [];
    sink.subscribe((record) => seen.push(record));
    sink.emitDelta(scope, delta("a"));
    sink.emitDelta(scope, delta("b"));
    expect(texts(seen)).toEqual(["a", "b"]);
    expect(seen.map((r) => [r.offset, r.id, r.ts])).toEqual([
      [0, "s-evt-0", 7],
      [1, "s-evt-1", 7],
    ]);
  });

  it("a listener subscribed while the sole one handles a record gets that record too", () => {
    const sink = new EventSink("s", { now: () => 0 });
    const first: string[] = [];
    const second: string[] = [];
    sink.subscribe((record) => {
      first.push(texts([record])[0] as string);
      if (first.length === 1) sink.subscribe((r) => second.push(texts([r])[0] as string));
    });
    sink.emitDelta(scope, delta("a"));
    sink.emitDelta(scope, delta("b"));
    expect(first).toEqual(["a", "b"]);
    expect(second).toEqual(["a", "b"]);
  });

  it("after one of two listeners unsubscribes, the other alone gets the next records", () => {
    const sink = new EventSink("s", { now: () => 0 });
    const kept: string[] = [];
    const dropped: string[] = [];
    sink.subscribe((r) => kept.push(texts([r])[0] as string));
    const stop = sink.subscribe((r) => dropped.push(texts([r])[0] as string));
    sink.emitDelta(scope, delta("a"));
    stop();
    sink.emitDelta(scope, delta("b"));
    expect(kept).toEqual(["a", "b"]);
    expect(dropped).toEqual(["a"]);
    expect(sink.hasListeners).toBe(true);
  });

  it("a sole listener that throws is reported and the next record still reaches it", () => {
    const errors: unknown[] = [];
    const sink = new EventSink("s", { now: () => 0, onListenerError: (error) => errors.push(error) });
    const seen: string[] = [];
    sink.subscribe((r) => {
      seen.push(texts([r])[0] as string);
      if (seen.length === 1) throw new Error("boom");
    });
    sink.emitDelta(scope, delta("a"));
    sink.emitDelta(scope, delta("b"));
    expect(seen).toEqual(["a", "b"]);
    expect(errors).toHaveLength(1);
  });

  it("a sole listener that unsubscribes gets nothing more, and no record is built", () => {
    const sink = new EventSink("s", { now: () => 0 });
    const seen: string[] = [];
    const stop = sink.subscribe((r) => seen.push(texts([r])[0] as string));
    sink.emitDelta(scope, delta("a"));
    stop();
    expect(sink.emitDelta(scope, delta("b"))).toBe(1);
    expect(seen).toEqual(["a"]);
    expect(sink.hasListeners).toBe(false);
  });
});
