import { emptyUsageTotals, registerSecrets } from "@tinyagents/inference";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../contracts/agent-event.js";
import { emptyCost } from "../cost/cost.js";
import { EventSink } from "../events/event-sink.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { Redactor } from "./redaction.js";
import type { ObservationSink } from "./sink.js";

const EVENTS: AgentEvent[] = [
  { type: "run.started", input: 1 },
  { type: "middleware.started", name: "budget", hook: "wrapModelCall" },
  { type: "budget.reserved", callId: "m1", estimatedInputTokens: 3 },
  { type: "state.updated", step: 0, messages: 2 },
  { type: "budget.reconciled", callId: "m1", estimatedInputTokens: 3, actualInputTokens: 4 },
  { type: "middleware.completed", name: "budget", hook: "wrapModelCall" },
  { type: "run.completed", modelCalls: 1, toolCalls: 0, usage: emptyUsageTotals(), cost: emptyCost() },
];

afterEach(() => vi.restoreAllMocks());

describe("attachObservability: bookkeeping events only the projections read", () => {
  it("skip the redaction walk; the projections still apply every one, in order", async () => {
    const walks = vi.spyOn(Redactor.prototype, "redact");
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink("r");
    const obs = attachObservability(events, { journal, statusStore });
    const scope = { runId: "r", rootRunId: "r", depth: 0 };
    for (const event of EVENTS.slice(0, 2)) events.emit(scope, event);
    // The bracket reached the status projection: its phase and last event.
    expect(obs.projections.status.get("r")).toMatchObject({ phase: "middleware", lastEventId: "r-evt-1" });
    for (const event of EVENTS.slice(2)) events.emit(scope, event);
    await obs.close();
    expect(walks).toHaveBeenCalledTimes(2); // run.started and run.completed
    expect((await journal.read("r")).map((o) => o.event.type)).toEqual(["run.started", "run.completed"]);
    expect(await statusStore.get("r")).toMatchObject({ status: "completed", lastEventId: "r-evt-6" });
  });

  it("take the full path when extra sinks or a journal of every event would see them", async () => {
    const walks = vi.spyOn(Redactor.prototype, "redact");
    const seen: string[] = [];
    const sink: ObservationSink = { write: (o) => void seen.push(o.event.type) };
    const scope = { runId: "r", rootRunId: "r", depth: 0 };
    const withSink = new EventSink("r");
    const a = attachObservability(withSink, { sinks: [sink] });
    for (const event of EVENTS) withSink.emit(scope, event);
    await a.close();
    expect(seen).toEqual(EVENTS.map((e) => e.type));
    expect(walks).toHaveBeenCalledTimes(EVENTS.length);

    const journal = new InMemoryEventJournal();
    const everything = new EventSink("r");
    const b = attachObservability(everything, { journal, journalEvents: "all" });
    for (const event of EVENTS) everything.emit(scope, event);
    await b.close();
    expect(await journal.read("r")).toHaveLength(EVENTS.length);
    expect(walks).toHaveBeenCalledTimes(2 * EVENTS.length);
  });

  it("a run id shaped like a secret takes the full path: one redacted run, never the raw id", async () => {
    const runId = "sk-abcdefghijklmnopqrstuvwxyz0123";
    const statusStore = new InMemoryHarnessStatusStore();
    const events = new EventSink(runId);
    const obs = attachObservability(events, { journal: new InMemoryEventJournal(), statusStore });
    for (const event of EVENTS) events.emit({ runId, rootRunId: runId, depth: 0 }, event);
    await obs.close();
    const runs = obs.projections.status.snapshot().value;
    expect(runs).toHaveLength(1);
    expect(JSON.stringify(runs)).not.toContain(runId);
    expect(JSON.stringify(await statusStore.list())).not.toContain(runId);
  });

  // The short cut takes an id's verdict per stream prefix and digit count: an id the redactor
  // would change must still be redacted when an earlier, shorter id of the same stream was not.
  it("an event id that becomes secret-shaped as its offset grows is redacted from then on", async () => {
    // `sk-` + 16 characters is a key: `sk-abcdefgh-evt-99` is not, `sk-abcdefgh-evt-100` is.
    const events = new EventSink("sk-abcdefgh");
    const obs = attachObservability(events, { journal: new InMemoryEventJournal() });
    const scope = { runId: "r", rootRunId: "r", depth: 0 };
    events.emit(scope, EVENTS[0] as AgentEvent);
    const lastIds: string[] = [];
    for (let i = 1; i <= 120; i++) {
      events.emit(scope, { type: "middleware.started", name: "m", hook: "beforeModel" });
      lastIds.push(obs.projections.status.get("r")?.lastEventId ?? "");
    }
    await obs.close();
    expect(lastIds[98]).toBe("sk-abcdefgh-evt-99");
    expect(lastIds.slice(99).every((id) => !id.includes("abcdefgh"))).toBe(true);
    expect(lastIds[119]).toBe("[REDACTED]");
  });

  it("a registered credential that ends in an event id's digits is redacted there", async () => {
    registerSecrets(["zq7-evt-42"]);
    const events = new EventSink("prefix-zq7");
    const obs = attachObservability(events, { journal: new InMemoryEventJournal() });
    const scope = { runId: "r", rootRunId: "r", depth: 0 };
    events.emit(scope, EVENTS[0] as AgentEvent);
    const lastIds: string[] = [];
    for (let i = 1; i <= 45; i++) {
      events.emit(scope, { type: "middleware.completed", name: "m", hook: "beforeModel" });
      lastIds.push(obs.projections.status.get("r")?.lastEventId ?? "");
    }
    await obs.close();
    expect(lastIds[40]).toBe("prefix-zq7-evt-41");
    expect(lastIds[41]).toBe("prefix-[REDACTED]");
    expect(lastIds.join()).not.toContain("zq7-evt-42");
  });
});
