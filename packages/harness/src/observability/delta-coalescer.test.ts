import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";
import { DeltaCoalescer } from "./delta-coalescer.js";
import { RawDeltaTexts } from "./raw-delta-texts.js";
import { RedactingSink } from "./redacting-sink.js";
import { Redactor } from "./redaction.js";

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
function coalesce(records: AgentObservation[], redactor?: Redactor): string[] {
  const coalescer = new DeltaCoalescer(redactor);
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
      // C0 is handed on (the first delta of call 2): call 1's pending merge, opened earlier, first
      "a model.text_delta A1A2 2",
      "a model.text_delta C0",
      // run a's next non-delta event releases both of its open merges, in the order they opened
      "a model.text_delta C1",
      "a model.text_delta A3",
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

  it("replaces a merge's secrets with the redactor's replacement, one per secret", () => {
    const redactor = new Redactor({ replacement: "<gone>", patterns: [/\bpin-\d{4}\b/g] });
    expect(
      coalesce(
        [
          text("a", "1", "x "),
          text("a", "1", "pin-1"),
          text("a", "1", "234 and pin-"),
          text("a", "1", "5678."),
        ],
        redactor,
      ),
    ).toEqual(["a model.text_delta x ", "a model.text_delta <gone> and <gone>. 3"]);
  });

  it("merges the raw texts a RedactingSink notes: a delta that completes a key alone, a keep label in an earlier record", () => {
    const redactor = new Redactor();
    const raw = new RawDeltaTexts();
    const coalescer = new DeltaCoalescer(redactor, raw);
    const out: string[] = [];
    const push = (o: AgentObservation) => {
      const e = o.event as { text?: string };
      if (e.text !== undefined) out.push(e.text);
    };
    const sink = new RedactingSink({ write: (o) => coalescer.push(o, push) }, redactor, raw);
    const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
    for (const t of ["a ", key.slice(0, 26), key.slice(26), " b"]) sink.write(text("r", "1", t));
    sink.write(done("r", "1"));
    for (const t of ["password=", "hunt", "er2hunter2 ok"]) sink.write(text("r", "2", t));
    coalescer.drain(push);
    expect(out).toEqual(["a ", "[REDACTED] b", "password=", "[REDACTED] ok"]);
  });

  it("redacts a merge with the call's earlier text in front: a key across a record boundary is caught", () => {
    const redactor = new Redactor();
    const key = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx";
    expect(
      coalesce(
        [
          // The key begins in the first delta (stored alone), then a sibling's record splits the
          // merge mid-key; call 2 of the same run is its own text; a completed call starts over.
          text("a", "1", key.slice(0, 12)),
          text("a", "1", key.slice(12, 20)),
          text("a", "1", key.slice(20, 24)),
          { ...done("b", "9"), rootRunId: "a" },
          text("a", "1", `${key.slice(24)} end`),
          text("a", "1", " more"),
          text("a", "2", "sk-proj-"),
          text("a", "2", "x"),
          done("a", "1"),
          text("a", "1", "AbCdEfGhIjKlMnOpQrSt"),
          text("a", "1", " tail"),
          // Glued to the first delta's word: no word boundary before "sk-" in the joined text.
          text("a", "3", "x"),
          text("a", "3", key.slice(0, 12)),
          text("a", "3", key.slice(12)),
        ],
        redactor,
      ),
    ).toEqual([
      `a model.text_delta ${key.slice(0, 12)}`,
      "a model.text_delta [REDACTED] 2",
      "b model.completed",
      "a model.text_delta [REDACTED] end more 2",
      "a model.text_delta sk-proj-",
      "a model.text_delta x",
      "a model.completed",
      "a model.text_delta AbCdEfGhIjKlMnOpQrSt",
      "a model.text_delta  tail",
      "a model.text_delta x",
      "a model.text_delta [REDACTED] 2",
    ]);
  });

  it("hands a run tree's records on in offset order: a parent's and its sub-agents' merges do not overtake", () => {
    const coalescer = new DeltaCoalescer();
    const handed: AgentObservation[] = [];
    const inTree = (runId: string, event: AgentEvent): AgentObservation => ({
      ...record(runId, event),
      rootRunId: "p",
    });
    for (const r of [
      inTree("p", { type: "model.text_delta", callId: "1", text: "p0" }),
      inTree("p", { type: "model.text_delta", callId: "1", text: "p1" }), // opens p's merge
      inTree("c1", { type: "model.text_delta", callId: "2", text: "x0" }), // handed on: p's merge first
      inTree("c1", { type: "model.text_delta", callId: "2", text: "x1" }), // opens c1's merge
      inTree("c2", { type: "model.text_delta", callId: "3", text: "y0" }), // handed on: c1's merge first
      inTree("p", { type: "model.text_delta", callId: "1", text: "p2" }),
      inTree("c2", { type: "model.text_delta", callId: "3", text: "y1" }),
      inTree("c2", { type: "model.text_delta", callId: "3", text: "y2" }),
      inTree("c1", { type: "model.text_delta", callId: "2", text: "x2" }),
      { ...done("c2", "3"), rootRunId: "p" }, // releases every pending merge of the tree
      inTree("c1", { type: "model.text_delta", callId: "2", text: "x3" }),
    ])
      coalescer.push(r, (o) => handed.push(o));
    coalescer.drain((o) => handed.push(o));
    const offsets = handed.map((o) => o.offset);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(handed.map((o) => `${o.runId}:${(o.event as { text?: string }).text ?? o.event.type}`)).toEqual([
      "p:p0",
      "p:p1",
      "c1:x0",
      "c1:x1",
      "c2:y0",
      "p:p2",
      "c2:y1y2",
      "c1:x2",
      "c2:model.completed",
      "c1:x3",
    ]);
  });

  it("continueMerge appends only to the merge the previous delta went to (same run, call and kind)", () => {
    const coalescer = new DeltaCoalescer();
    const out: string[] = [];
    const push = (o: AgentObservation) => {
      const e = o.event as { type: string; text?: string; deltas?: number };
      out.push([o.runId, e.type, e.text, e.deltas].filter((v) => v !== undefined).join(" "));
    };
    // Nothing pending yet (the first delta of a call is passed through, the second opens the merge).
    expect(coalescer.continueMerge("a", "1", "model.text_delta", "x")).toBe(false);
    coalescer.push(text("a", "1", "A0"), push);
    expect(coalescer.continueMerge("a", "1", "model.text_delta", "x")).toBe(false);
    coalescer.push(text("a", "1", "A1"), push);
    expect(coalescer.continueMerge("a", "1", "model.text_delta", "A2")).toBe(true);
    expect(coalescer.continueMerge("a", "1", "model.text_delta", "A3")).toBe(true);
    // Another run, another call or another kind is not the pending merge: push those instead.
    expect(coalescer.continueMerge("b", "1", "model.text_delta", "B")).toBe(false);
    expect(coalescer.continueMerge("a", "2", "model.text_delta", "C")).toBe(false);
    expect(coalescer.continueMerge("a", "1", "model.reasoning_delta", "r")).toBe(false);
    coalescer.push(done("a", "1"), push);
    // Released: nothing to continue until a merge opens again.
    expect(coalescer.continueMerge("a", "1", "model.text_delta", "late")).toBe(false);
    expect(out).toEqual(["a model.text_delta A0", "a model.text_delta A1A2A3 3", "a model.completed"]);
  });
});
