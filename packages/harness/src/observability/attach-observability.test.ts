import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyUsageTotals } from "@tinyagents/inference";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { emptyCost } from "../cost/cost.js";
import { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { InMemoryHarnessStatusStore } from "./in-memory-status-store.js";
import { JsonlSink } from "./jsonl-sink.js";
import type { ObservationSink } from "./sink.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-attach-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A `run.completed` event of a run without calls. */
function completed() {
  return {
    type: "run.completed",
    modelCalls: 0,
    toolCalls: 0,
    usage: emptyUsageTotals(),
    cost: emptyCost(),
  } as const;
}

/** A sink that records what happened to it. */
class RecordingSink implements ObservationSink {
  readonly written: AgentObservation[] = [];
  closed = 0;
  write(observation: AgentObservation): void {
    this.written.push(observation);
  }
  async close(): Promise<void> {
    this.closed += 1;
  }
}

describe("attachObservability().close()", () => {
  it("flushes, detaches and closes every sink it was handed", async () => {
    const events = new EventSink("run-1");
    const recording = new RecordingSink();
    const obs = attachObservability(events, { sinks: [recording] });
    events.emit({ runId: "run-1", rootRunId: "run-1", depth: 0 }, { type: "run.started", input: 1 });
    await obs.close();
    expect(recording.written.map((o) => o.event.type)).toEqual(["run.started"]);
    expect(recording.closed).toBe(1);
    events.emit({ runId: "run-1", rootRunId: "run-1", depth: 0 }, { type: "run.started", input: 1 });
    expect(recording.written).toHaveLength(1); // detached
  });

  it("releases a JsonlSink's file handle, with every line on disk", async () => {
    const events = new EventSink("run-2");
    const file = join(dir, "events.jsonl");
    const jsonl = new JsonlSink(file);
    const obs = attachObservability(events, { sinks: [jsonl] });
    for (let i = 0; i < 3; i += 1) {
      events.emit({ runId: "run-2", rootRunId: "run-2", depth: 0 }, { type: "run.started", input: i });
    }
    await obs.close();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(3);
    // The sink holds no open handle any more (it would be closed by GC with a warning otherwise).
    expect((jsonl as unknown as { handle: unknown }).handle).toBeUndefined();
  });

  it("detaches at the call when nothing is left to write (a run's close after the run settled)", async () => {
    const events = new EventSink("run-3");
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const obs = attachObservability(events, { journal, statusStore });
    const scope = { runId: "run-3", rootRunId: "run-3", depth: 0 };
    events.emit(scope, { type: "run.started", input: 1 });
    await obs.flush(); // written: the pipeline is idle
    const closing = obs.close();
    events.emit(scope, completed()); // after close(): not observed
    await closing;
    expect((await journal.read("run-3")).map((o) => o.event.type)).toEqual(["run.started"]);
    expect((await statusStore.get("run-3"))?.status).toBe("running");
    expect(obs.projections.status.get("run-3")?.status).toBe("running");
  });

  it("settles with a rejection, none left unhandled, when both writes fail and onError throws", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const events = new EventSink("run-5");
      const journal = new InMemoryEventJournal();
      const statusStore = new InMemoryHarnessStatusStore();
      // A full disk fails both writes of the same commit.
      Object.assign(journal, { appendMany: () => Promise.reject(new Error("journal down")) });
      Object.assign(statusStore, { save: () => Promise.reject(new Error("status down")) });
      const obs = attachObservability(events, {
        journal,
        statusStore,
        onError: (error) => {
          throw error;
        },
      });
      events.emit({ runId: "run-5", rootRunId: "run-5", depth: 0 }, { type: "run.started", input: 1 });
      const settle = (obs as unknown as { settle(): Promise<void> }).settle();
      await expect(settle).rejects.toThrow(/down/);
      await new Promise((resolve) => setImmediate(resolve)); // Node reports unhandled rejections by now
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("waits for what is still queued before it detaches", async () => {
    const events = new EventSink("run-4");
    const journal = new InMemoryEventJournal();
    const statusStore = new InMemoryHarnessStatusStore();
    const obs = attachObservability(events, { journal, statusStore });
    const scope = { runId: "run-4", rootRunId: "run-4", depth: 0 };
    events.emit(scope, { type: "run.started", input: 1 });
    events.emit(scope, completed());
    await obs.close(); // not idle: the journal queue and the status save wait for the turn end
    expect((await journal.read("run-4")).map((o) => o.event.type)).toEqual(["run.started", "run.completed"]);
    expect((await statusStore.get("run-4"))?.status).toBe("completed");
  });
});
