import { ProviderError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import { runScenario, scenarioSink } from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { LangfuseClient } from "./langfuse-client.js";
import { acceptAll, closeServers, type Received, type Reply, serve } from "./langfuse-server.fixture.js";
import { LangfuseSink } from "./langfuse-sink.js";

afterEach(closeServers);

const KEYS = ["pk-lf-sink", "sk-lf-sink"] as const;

/** The records of the weather scenario (a tool-using run with a sub-agent), rooted at `run-1`. */
async function scenarioRecords(): Promise<EventRecord[]> {
  const clock = new DeterministicClock();
  const sink = scenarioSink(clock);
  const recorder = new EventRecorder();
  recorder.attach(sink);
  await runScenario(sink, clock);
  return [...recorder.records];
}

/** Answers from a script, then `last` forever; remembers when each request arrived. */
function scripted(script: Reply[], last: (request: Received) => Reply) {
  const times: number[] = [];
  const reply = (request: Received): Reply => {
    times.push(Date.now());
    return script.shift() ?? last(request);
  };
  return { reply, times };
}

function droppedEvents(recorder: EventRecorder) {
  return recorder.records.flatMap((r) => (r.event.type === "journal.dropped" ? [r.event] : []));
}

describe("LangfuseSink: live export under failure", () => {
  it("ingestion: a 429 with Retry-After is retried after the wait, then the trace is stored", async () => {
    const records = await scenarioRecords();
    const { reply, times } = scripted(
      [{ status: 429, headers: { "retry-after": "1" }, body: '{"message":"slow down"}' }],
      acceptAll,
    );
    const server = await serve(reply);
    const client = LangfuseClient.direct(server.url, ...KEYS, { transport: "ingestion" });
    const errors: unknown[] = [];
    const sink = new LangfuseSink(client, { initialBackoffMs: 10, onError: (e) => errors.push(e) });
    for (const record of records) sink.write(record);
    await sink.close();
    expect(server.requests.length).toBe(2);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);
    // Retry-After: 1 (second) outweighs the 10 ms backoff.
    expect((times[1] ?? 0) - (times[0] ?? 0)).toBeGreaterThanOrEqual(900);
    expect(sink.exported).toBe(1);
    expect(sink.dropped).toBe(0);
    expect(errors).toEqual([]);
  });

  it("ingestion: 503s until the attempts run out drop the batch, reported as journal.dropped and to onError", async () => {
    const records = await scenarioRecords();
    const server = await serve(() => ({ status: 503, body: "down" }));
    const client = LangfuseClient.direct(server.url, ...KEYS, { transport: "ingestion" });
    const events = new EventSink("reports");
    const seen = new EventRecorder();
    seen.attach(events);
    const errors: unknown[] = [];
    const sink = new LangfuseSink(client, {
      maxAttempts: 3,
      initialBackoffMs: 5,
      events,
      onError: (e) => errors.push(e),
    });
    for (const record of records) sink.write(record);
    await sink.close();
    expect(server.requests.length).toBe(3);
    expect(sink.dropped).toBe(records.length);
    expect(droppedEvents(seen)).toEqual([
      {
        type: "journal.dropped",
        sink: "langfuse",
        dropped: records.length,
        fromOffset: records[0]?.offset,
        toOffset: records.at(-1)?.offset,
        reason: "write_failed",
      },
    ]);
    expect(errors[0]).toBeInstanceOf(ProviderError);
    expect(errors[0]).toMatchObject({ status: 503, retryable: true });
    expect(errors.at(-1)).toMatchObject({ code: "storage", details: { dropped: records.length } });
  });

  it("a non-retryable answer (401) is not retried", async () => {
    const records = await scenarioRecords();
    const server = await serve(() => ({ status: 401, body: "{}" }));
    const client = LangfuseClient.direct(server.url, ...KEYS, { transport: "ingestion" });
    const errors: unknown[] = [];
    const sink = new LangfuseSink(client, { initialBackoffMs: 5, onError: (e) => errors.push(e) });
    for (const record of records) sink.write(record);
    await sink.close();
    expect(server.requests.length).toBe(1);
    expect(sink.dropped).toBe(records.length);
    expect(errors[0]).toMatchObject({ status: 401, retryable: false });
  });

  it("a flood beyond maxQueue is dropped and counted, memory stays bounded, the rest is sent", async () => {
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, ...KEYS, { transport: "ingestion" });
    const events = new EventSink("flood");
    const seen = new EventRecorder();
    seen.attach(events);
    const sink = new LangfuseSink(client, { maxQueue: 50, events });
    sink.attach(events);
    let peak = 0;
    // 40 runs of 3 records each, written in one burst (no await: the export cannot keep up).
    for (let i = 0; i < 40; i += 1) {
      const scope = { runId: `r${i}`, rootRunId: `r${i}`, depth: 0 };
      events.emit(scope, { type: "run.started", input: 1 });
      events.emit(scope, { type: "route.selected", callId: "c1", model: "m", source: "registry_default" });
      events.emit(scope, { type: "run.interrupted", reason: `paused ${i}` });
      peak = Math.max(peak, sink.queued);
    }
    await sink.close();
    expect(peak).toBeLessThanOrEqual(50);
    const drops = droppedEvents(seen);
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.every((d) => d.reason === "queue_full" && d.sink === "langfuse")).toBe(true);
    const reported = drops.reduce((sum, d) => sum + d.dropped, 0);
    expect(reported).toBe(sink.dropped);
    expect(sink.dropped).toBe(120 - 50);
    const sent = server.requests.flatMap((r) => JSON.parse(r.body).batch as { type: string }[]);
    expect(sent.filter((e) => e.type === "trace-create").length).toBeGreaterThanOrEqual(16);
  });

  it("close() sends runs still open, and what arrives after close is counted as dropped", async () => {
    const records = await scenarioRecords();
    const open = records.filter((r) => !(r.runId === "run-1" && r.event.type === "run.completed"));
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, ...KEYS, { transport: "ingestion" });
    const sink = new LangfuseSink(client);
    for (const record of open) sink.write(record);
    await sink.flush();
    expect(server.requests.length).toBe(0); // the root run has not ended: nothing sent yet
    await sink.close();
    expect(server.requests.length).toBe(1);
    expect(sink.exported).toBe(1);
    sink.write({ ...(records[0] as EventRecord), rootRunId: "late", runId: "late" });
    expect(sink.dropped).toBe(1);
  });

  it("otlp: the OpenTelemetry exporter retries a 429 (Retry-After) itself; a 500 is retried by the sink", async () => {
    const records = await scenarioRecords();
    const { reply } = scripted(
      [
        { status: 429, headers: { "retry-after": "0" } },
        { status: 500, body: "boom" },
      ],
      () => ({ status: 200 }),
    );
    const server = await serve(reply);
    const client = LangfuseClient.direct(server.url, ...KEYS);
    const errors: unknown[] = [];
    const sink = new LangfuseSink(client, { initialBackoffMs: 5, onError: (e) => errors.push(e) });
    for (const record of records) sink.write(record);
    await sink.close();
    expect(server.requests.length).toBe(3);
    expect(server.requests[2]?.body).toBe(server.requests[0]?.body);
    expect(JSON.parse(server.requests[2]?.body ?? "{}").resourceSpans.length).toBe(1);
    expect(sink.exported).toBe(1);
    expect(sink.dropped).toBe(0);
    expect(errors).toEqual([]);
  });

  it("validates its bounds", () => {
    const client = LangfuseClient.direct("http://127.0.0.1:1", ...KEYS);
    expect(() => new LangfuseSink(client, { maxQueue: 0 })).toThrow(/maxQueue must be an integer >= 1/);
    expect(() => new LangfuseSink(client, { maxAttempts: 1.5 })).toThrow(/maxAttempts/);
  });
});
