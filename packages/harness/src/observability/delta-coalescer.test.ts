import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";
import { DeltaCoalescer } from "./delta-coalescer.js";

let offset = 0;
function record(runId: string, event: AgentEvent): AgentObservation {
  const n = offset++;
  return { id: `${runId}-evt-${n}`, offset: n, ts: n, runId, rootRunId: runId, depth: 0, event };
}
const text = (runId: string, callId: string, t: string) =>
  record(runId, { type: "model.text_delta", callId, text: t });
const reasoning = (runId: string, callId: string, t: string) =>
  record(runId, { type: "model.reasoning_delta", callId, text: t });
const done = (runId: string, callId: string) =>
  record(runId, {
    type: "model.completed",
    callId,
    model: "m",
    durationMs: 0,
    toolCalls: 0,
    servedFromCache: false,
    finishReason: "stop",
  });

/** What the coalescer hands on, as `runId type text [deltas]` lines. */
function coalesce(records: AgentObservation[], mergeText?: (t: string) => string): string[] {
  const coalescer = new DeltaCoalescer(mergeText);
  const out: string[] = [];
  const push = (o: AgentObservation) => {
    const e = o.event as { type: string; text?: string; deltas?: number };
    out.push([o.runId, e.type, e.text, e.deltas].filter((v) => v !== undefined).join(" "));
  };
  for (const r of records) coalescer.push(r, push);
  coalescer.drain(push);
  return out;
}

describe("DeltaCoalescer", () => {
  it("keeps the first delta, merges the rest per call, and keeps interleaved runs and calls apart", () => {
    expect(
      coalesce([
        text("a", "1", "A0"),
        text("b", "1", "B0"), // another run, same call id
        text("a", "1", "A1"),
        text("b", "1", "B1"),
        text("a", "1", "A2"),
        text("a", "2", "C0"), // a second call of run a, while the first is open
        text("a", "2", "C1"),
        text("a", "1", "A3"),
        done("a", "1"),
        text("b", "1", "B2"),
        done("b", "1"),
      ]),
    ).toEqual([
      "a model.text_delta A0",
      "b model.text_delta B0",
      "a model.text_delta C0",
      // run a's next non-delta event releases both of its open merges, in the order they opened
      "a model.text_delta A1A2A3 3",
      "a model.text_delta C1",
      "a model.completed",
      "b model.text_delta B1B2 2",
      "b model.completed",
    ]);
  });

  it("keeps the order when a call switches between reasoning and text, and merges again after", () => {
    expect(
      coalesce([
        reasoning("a", "1", "r0"),
        reasoning("a", "1", "r1"),
        reasoning("a", "1", "r2"),
        text("a", "1", "t0"),
        text("a", "1", "t1"),
        reasoning("a", "1", "r3"),
        reasoning("a", "1", "r4"),
        text("a", "1", "t2"),
        text("a", "1", "t3"),
      ]),
    ).toEqual([
      "a model.reasoning_delta r0",
      "a model.reasoning_delta r1r2 2",
      "a model.text_delta t0",
      "a model.text_delta t1",
      "a model.reasoning_delta r3r4 2",
      "a model.text_delta t2t3 2",
    ]);
  });

  it("passes a merged record's whole text through mergeText (the journal redacts it there)", () => {
    const upper = (t: string) => t.toUpperCase();
    expect(coalesce([text("a", "1", "x"), text("a", "1", "y"), text("a", "1", "z")], upper)).toEqual([
      "a model.text_delta x",
      "a model.text_delta YZ 2",
    ]);
  });
});
