import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { attachObservability } from "./attach-observability.js";
import { JsonlSink } from "./jsonl-sink.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function flood(sink: JsonlSink, runs: number, awaitDrain: boolean) {
  const dropEvents: number[] = [];
  const errors: unknown[] = [];
  let emitted = 0;
  const one = async (i: number) => {
    const runId = `r${i}`;
    const events = new EventSink(runId);
    events.subscribe((record) => {
      if (record.event.type === "journal.dropped") dropEvents.push(record.event.dropped);
      else emitted++;
    });
    const obs = attachObservability(events, { sinks: [sink], onError: (e) => errors.push(e) });
    const harness = new AgentHarness().registerModel("main", new ScriptedModel([`answer ${i}`]));
    await lowerLayer(harness).invoke(undefined, undefined, { runId }, "hi", { events });
    if (awaitDrain) await sink.drain();
    await obs.flush();
    obs.detach();
  };
  if (awaitDrain) for (let i = 0; i < runs; i++) await one(i);
  else await Promise.all(Array.from({ length: runs }, (_, i) => one(i)));
  await sink.flush();
  return { dropEvents, errors, emitted };
}

describe("a JsonlSink shared by many attachObservability pipelines", () => {
  it("reports its drops as journal.dropped events and to onError (never silently)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ta-shared-sink-"));
    dirs.push(dir);
    const sink = new JsonlSink(join(dir, "all.jsonl"), { maxQueue: 20, batchSize: 5 });
    const { dropEvents, errors, emitted } = await flood(sink, 300, false);
    expect(sink.dropped).toBeGreaterThan(0);
    expect(dropEvents.length).toBeGreaterThan(0);
    expect(errors.length).toBeGreaterThan(0);
    // Every lost observation of a run is in some report (self-reports lost are only counted).
    const reported = dropEvents.reduce((a, b) => a + b, 0);
    expect(reported).toBeGreaterThan(0);
    expect(reported).toBeLessThanOrEqual(sink.dropped);
    const lines = (await readFile(join(dir, "all.jsonl"), "utf8")).trim().split("\n").length;
    expect(lines + sink.dropped).toBeGreaterThanOrEqual(emitted);
    await sink.close();
  }, 60_000);

  it("back-pressure: awaiting sink.drain() between runs loses nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ta-shared-sink-"));
    dirs.push(dir);
    const sink = new JsonlSink(join(dir, "all.jsonl"), { maxQueue: 20, batchSize: 5 });
    const { dropEvents, emitted } = await flood(sink, 100, true);
    expect(sink.dropped).toBe(0);
    expect(dropEvents).toEqual([]);
    const lines = (await readFile(join(dir, "all.jsonl"), "utf8")).trim().split("\n").length;
    expect(lines).toBe(emitted);
    await sink.close();
  }, 60_000);
});
