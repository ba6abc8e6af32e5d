/**
 * The DeltaLane (attachObservability's short cut for the bulk of a streamed response) must leave
 * exactly what the full path leaves — the same journal records, byte for byte, the same
 * projections and saved statuses — and no secret, including one streamed across deltas.
 */
import { emptyUsageTotals, registerSecrets } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import type { EventScope } from "../contracts/event-scope.js";
import { emptyCost } from "../cost/cost.js";
import { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability } from "./attach-observability.js";
import { DeltaLane } from "./delta-lane.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { JournalSink } from "./journal-sink.js";
import { ProjectionSink } from "./projection-sink.js";
import { Redactor } from "./redaction.js";

const OPENAI = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789";
const REGISTERED = "lane-cred-7781";
registerSecrets([REGISTERED]);

interface Emitted {
  scope: EventScope;
  event: AgentEvent;
}

const started = (callId: string): AgentEvent => ({
  type: "model.started",
  callId,
  model: "m",
  provider: "p",
  providerModelId: "m",
  attempt: 1,
});
const completed = (callId: string): AgentEvent => ({
  type: "model.completed",
  callId,
  model: "m",
  durationMs: 1,
  toolCalls: 0,
  servedFromCache: false,
  finishReason: "stop",
});
const text = (callId: string, t: string): AgentEvent => ({ type: "model.text_delta", callId, text: t });
const reasoning = (callId: string, t: string): AgentEvent => ({
  type: "model.reasoning_delta",
  callId,
  text: t,
});

/** A run tree streaming: secrets inside one delta, split across deltas, interleaved calls, a child run. */
function script(root: string): Emitted[] {
  const top: EventScope = { runId: root, rootRunId: root, depth: 0 };
  const child: EventScope = { runId: `${root}-child`, parentRunId: root, rootRunId: root, depth: 1 };
  const out: Emitted[] = [];
  const at = (scope: EventScope, event: AgentEvent) => out.push({ scope, event });
  at(top, { type: "run.started", input: 1 });
  at(top, started("c1"));
  // A key alone in a delta, one split across three, and one only its own delta shows as a key
  // (glued to the word before it, the whole text has no word boundary before "sk-").
  const deltas = [
    "Hel",
    "lo ",
    "the ",
    "key ",
    "is ",
    OPENAI,
    " and ",
    "sk-proj-",
    "AbCdEfGhIjKl",
    "MnOpQrSt",
  ];
  for (const t of [...deltas, " or x", "sk-ZyXwVuTsRqPoNmLkJi", "."]) at(top, text("c1", t));
  for (const t of ["think", "ing ", REGISTERED.slice(0, 6), REGISTERED.slice(6)]) at(top, reasoning("c1", t));
  for (const t of ["back ", "to ", "text"]) at(top, text("c1", t));
  at(child, { type: "run.started", input: 1 });
  at(child, started("c2"));
  for (let i = 0; i < 40; i++) {
    at(child, text("c2", `w${i} `));
    if (i % 10 === 0) at(top, text("c1", `p${i}`)); // the parent streams too, interleaved
  }
  at(child, completed("c2"));
  at(top, completed("c1"));
  at(top, {
    type: "run.completed",
    modelCalls: 1,
    toolCalls: 0,
    usage: emptyUsageTotals(),
    cost: emptyCost(),
  });
  return out;
}

/** Play `script` on a fresh sink wired by attachObservability; `extraSink` turns the lane off. */
async function play(root: string, extraSink: boolean) {
  const journal = new InMemoryEventJournal();
  const statusStore = new InMemoryHarnessStatusStore();
  const events = new EventSink(root, { now: () => 1_700_000_000_000 });
  const stream: AgentObservation[] = [];
  events.subscribe((record) => stream.push(record));
  const obs = attachObservability(events, {
    journal,
    statusStore,
    ...(extraSink ? { sinks: [{ write: () => {} }] } : {}),
  });
  for (const { scope, event } of script(root)) {
    if (event.type.endsWith("_delta")) events.emitDelta(scope, event as never);
    else events.emit(scope, event);
  }
  await obs.close();
  // Stored under the redacted root run id when the root id is secret-shaped: read every tree.
  const roots = await journal.rootRuns();
  expect(roots).toHaveLength(1);
  return {
    journal: JSON.stringify(await journal.read(roots[0] as string)),
    status: JSON.stringify(await statusStore.list({})),
    projections: JSON.stringify(obs.projections.snapshots()),
    stream,
  };
}

describe("DeltaLane", () => {
  it.each(["run-lane-1", `run-${OPENAI}`, "secret=hunter22"])(
    "leaves the same journal, statuses and projections as the full path (root %s)",
    async (root) => {
      const lane = await play(root, false);
      const full = await play(root, true);
      expect(lane.journal).toBe(full.journal);
      expect(lane.status).toBe(full.status);
      expect(lane.projections).toBe(full.projections);
      // Nothing refused: the parent's and the child's merges reached the journal in offset order.
      const stored = JSON.parse(lane.journal) as AgentObservation[];
      expect(stored.map((r) => r.event.type)).not.toContain("journal.dropped");
      const offsets = stored.map((r) => r.offset);
      expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
      const childText = stored
        .filter((r) => r.depth === 1 && r.event.type === "model.text_delta")
        .map((r) => (r.event as { text: string }).text)
        .join("");
      expect(childText).toBe(Array.from({ length: 40 }, (_, i) => `w${i} `).join(""));
      for (const secret of [OPENAI, REGISTERED, "hunter22", "AbCdEfGhIjKlMnOpQrSt", "ZyXwVuTsRqPoNmLkJi"]) {
        expect(lane.journal).not.toContain(secret);
        expect(lane.status).not.toContain(secret);
      }
      // The stream's own listener still got every delta, raw.
      expect(lane.stream.filter((r) => r.event.type.endsWith("_delta"))).toHaveLength(13 + 4 + 3 + 40 + 4);
    },
  );

  it("takes the deltas that continue their call's pending merge, and nothing else", async () => {
    const journal = new InMemoryEventJournal();
    const redactor = new Redactor();
    const journalSink = new JournalSink(journal, { journalEvents: "essential", redactor });
    const projections = new ProjectionSink();
    const lane = new DeltaLane("run-9", redactor, projections, journalSink, () => {});
    const events = new EventSink("run-9", { now: () => 5 });
    const taken: boolean[] = [];
    events.subscribe((record) => {
      const byLane = lane.take(record);
      taken.push(byLane);
      if (!byLane) {
        const redacted = redactor.redact(record as never) as unknown as AgentObservation;
        projections.write(redacted);
        journalSink.write(redacted);
      }
    });
    const scope: EventScope = { runId: "run-9", rootRunId: "run-9", depth: 0 };
    events.emit(scope, started("c1"));
    for (const t of ["a", "b", `x ${REGISTERED}`, "d"]) events.emitDelta(scope, text("c1", t) as never);
    events.emitDelta(scope, reasoning("c1", "r") as never);
    events.emit(scope, completed("c1"));
    // model.started, the first delta (stored alone), the one opening the merge: the full path;
    // the next two continue it; the reasoning delta switches kind; model.completed.
    expect(taken).toEqual([false, false, false, true, true, false, false]);
    await journalSink.flush();
    const stored = (await journal.read("run-9")).map(
      (r) => r.event as { type: string; text?: string; deltas?: number },
    );
    expect(stored.map((e) => [e.type, e.text, e.deltas])).toEqual([
      ["model.started", undefined, undefined],
      ["model.text_delta", "a", undefined],
      ["model.text_delta", "bx [REDACTED]d", 3],
      ["model.reasoning_delta", "r", undefined],
      ["model.completed", undefined, undefined],
    ]);
    // The projections noted every record the lane took (the last event id moved past them).
    expect(projections.projections.status.get("run-9")?.lastEventId).toBe("run-9-evt-6");
  });
});
