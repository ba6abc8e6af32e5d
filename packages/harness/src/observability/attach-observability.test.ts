import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability } from "./attach-observability.js";
import { JsonlSink } from "./jsonl-sink.js";
import type { ObservationSink } from "./sink.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tinyagents-attach-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
});
