import { TinyAgentsError } from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { JournalSink } from "./journal-sink.js";
import { ReplayReconcilingJournal } from "./replay-reconciling-journal.js";
import { attachSink } from "./sink.js";

const scope = { runId: "r", rootRunId: "r", depth: 0 };

/** One of every event the "essential" journal decides about, between a run's start and end. */
const EVENTS: AgentEvent[] = [
  { type: "run.started", input: 1 },
  { type: "route.selected", callId: "m1", model: "main", source: "registry_default" },
  { type: "route.selected", callId: "m1", model: "main", source: "agent_default" },
  { type: "route.selected", callId: "m2", model: "backup", source: "fallback" },
  { type: "middleware.started", name: "budget", hook: "beforeModel" },
  { type: "middleware.completed", name: "budget", hook: "beforeModel" },
  { type: "state.updated", step: 0, messages: 2 },
  { type: "budget.reserved", callId: "m2", estimatedInputTokens: 12 },
  { type: "budget.reconciled", callId: "m2", estimatedInputTokens: 12, actualInputTokens: 10 },
  { type: "run.interrupted", reason: "paused" },
];

function emitAll(events: EventSink): void {
  for (const event of EVENTS) events.emit(scope, event);
}

describe("journalEvents", () => {
  it("attachObservability journals only what readers use by default; projections still see every event", async () => {
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("r");
    const live: string[] = [];
    events.subscribe((r) => live.push(r.event.type));
    const obs = attachObservability(events, { journal, statusStore });
    emitAll(events);
    await obs.close();

    const journaled = await journal.read("r");
    expect(journaled.map((o) => o.event.type)).toEqual(["run.started", "route.selected", "run.interrupted"]);
    // The kept route is the fallback (it says why another model ran); offsets keep their gaps.
    expect(journaled[1]?.event).toMatchObject({ source: "fallback", model: "backup" });
    expect(journaled.map((o) => o.offset)).toEqual([0, 3, 9]);
    expect(live).toHaveLength(EVENTS.length);
    expect((await statusStore.get("r"))?.status).toBe("interrupted");
  });

  it('"all" journals every event, dense offsets', async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r");
    const obs = attachObservability(events, { journal, journalEvents: "all" });
    emitAll(events);
    await obs.close();
    expect((await journal.read("r")).map((o) => o.offset)).toEqual(EVENTS.map((_, i) => i));
  });

  it("an engine's reconciling journal gets every event by default (it matches replays against them)", async () => {
    const stored = new InMemoryEventJournal();
    const journal = await ReplayReconcilingJournal.open(stored, "r");
    const events = new EventSink("r");
    const obs = attachObservability(events, { journal });
    emitAll(events);
    await obs.close();
    const types = (await stored.read("r")).map((o) => o.event.type);
    expect(types).toContain("state.updated");
    expect(types).toContain("middleware.started");
    expect(types).toHaveLength(EVENTS.length);
  });

  it("a failed middleware hook stays in the essential journal", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r");
    const obs = attachObservability(events, { journal });
    events.emit(scope, { type: "middleware.started", name: "guard", hook: "beforeTool" });
    events.emit(scope, {
      type: "middleware.failed",
      name: "guard",
      hook: "beforeTool",
      error: { code: "middleware", message: "refused" },
    } as AgentEvent);
    await obs.close();
    expect((await journal.read("r")).map((o) => o.event.type)).toEqual(["middleware.failed"]);
  });

  it("a JournalSink built directly keeps every event unless asked", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("r");
    const sink = new JournalSink(journal);
    attachSink(events, sink);
    emitAll(events);
    await sink.flush();
    expect(await journal.read("r")).toHaveLength(EVENTS.length);
  });

  it("rejects an unknown value with a validation error naming the choices", () => {
    const journal = new InMemoryEventJournal();
    const bad = () =>
      attachObservability(new EventSink("r"), { journal, journalEvents: "some" as unknown as "all" });
    expect(bad).toThrow(TinyAgentsError);
    expect(bad).toThrow(/journalEvents must be "essential" or "all"/);
  });
});
