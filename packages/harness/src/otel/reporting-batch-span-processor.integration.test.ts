import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { waitUntil } from "../../test/support/wait-until.js";
import type { AgentEventOf, EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import { closeServers, type Reply, serve, spanNames } from "../langfuse/langfuse-server.fixture.js";
import { attachObservability } from "../observability/attach-observability.js";
import type { DropReport } from "../observability/bounded-queue.js";
import { runScenario, scenarioSink } from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { OtelTracer } from "./otel-tracer.js";
import { ReportingBatchSpanProcessor } from "./reporting-batch-span-processor.js";

// ReportingBatchSpanProcessor with the real SDK (BasicTracerProvider) and the official proto
// exporter against a loopback receiver; bodies are decoded by the official proto definitions.

afterEach(closeServers);

const dropEvents = (records: EventRecord[]) =>
  records.flatMap((r) =>
    r.event.type === "journal.dropped" ? [r as EventRecord & { event: AgentEventOf<"journal.dropped"> }] : [],
  );

/** `count` runs, one `invoke_agent` span each, emitted synchronously. */
function emitRuns(events: EventSink, count: number, prefix = "r"): void {
  for (let i = 0; i < count; i += 1) {
    const scope = { runId: `${prefix}${i}`, rootRunId: `${prefix}${i}`, depth: 0 };
    events.emit(scope, { type: "run.started", input: 1 });
    events.emit(scope, { type: "run.interrupted", reason: "flood" });
  }
}

describe("ReportingBatchSpanProcessor (real SDK + exporter-trace-otlp-proto, loopback receiver)", () => {
  it("a flood into a small queue: exactly the dropped spans are reported as one journal.dropped event and to onError", async () => {
    const server = await serve(() => ({ status: 200 }));
    const events = new EventSink("flood");
    const records: EventRecord[] = [];
    events.subscribe((record) => records.push(record));
    const errors: unknown[] = [];
    const reports: DropReport[] = [];
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces` }),
      {
        maxQueueSize: 20,
        maxExportBatchSize: 20,
        scheduledDelayMillis: 60_000,
        events,
        onError: (error) => errors.push(error),
        onDrop: (report) => reports.push(report),
      },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    new OtelTracer(provider.getTracer("flood")).attach(events);

    emitRuns(events, 100);
    // Nothing leaves during the synchronous flood: the first 20 fill the queue, 80 are lost.
    await provider.shutdown();

    expect(spanNames(server.requests)).toHaveLength(20);
    expect(processor.dropped).toBe(80);
    const drops = dropEvents(records);
    expect(drops.map((r) => r.event)).toEqual([
      {
        type: "journal.dropped",
        sink: "otel",
        dropped: 80,
        fromOffset: 20,
        toOffset: 99,
        reason: "queue_full",
      },
    ]);
    expect(drops[0]?.runId).toBe("r99");
    expect(reports).toMatchObject([{ sink: "otel", dropped: 80, reason: "queue_full" }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TinyAgentsError);
    expect(errors[0]).toMatchObject({
      code: "storage",
      details: { sink: "otel", dropped: 80, reason: "queue_full" },
    });
  });

  it("429 with Retry-After, then 200: every span of a tool-using, sub-agent run is delivered, nothing reported", async () => {
    const script: Reply[] = [{ status: 429, headers: { "retry-after": "0" } }];
    const server = await serve(() => script.shift() ?? { status: 200 });
    const clock = new DeterministicClock();
    const sink = scenarioSink(clock);
    const records: EventRecord[] = [];
    sink.subscribe((record) => records.push(record));
    const errors: unknown[] = [];
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces`, timeoutMillis: 10_000 }),
      { events: sink, onError: (error) => errors.push(error) },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    new OtelTracer(provider.getTracer("retry")).attach(sink);
    await runScenario(sink, clock);
    await provider.shutdown();

    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);
    const names = spanNames(server.requests.slice(1));
    expect(names).toContain("execute_tool get_weather");
    expect(names.filter((n) => n.startsWith("invoke_agent"))).toHaveLength(2);
    expect(names.filter((n) => n.startsWith("chat "))).not.toHaveLength(0);
    expect(processor.dropped).toBe(0);
    expect(dropEvents(records)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("shutdown flushes what is queued; a span ending after shutdown is counted as dropped", async () => {
    const server = await serve(() => ({ status: 200 }));
    const events = new EventSink("late");
    const records: EventRecord[] = [];
    events.subscribe((record) => records.push(record));
    const errors: unknown[] = [];
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces` }),
      {
        scheduledDelayMillis: 60_000,
      },
    );
    const detach = processor.attachReporting(events, (error) => errors.push(error));
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer("late");
    new OtelTracer(tracer).attach(events);

    emitRuns(events, 7);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.requests).toHaveLength(0); // a partial batch waits for the (60 s) schedule
    await processor.shutdown();
    expect(spanNames(server.requests)).toHaveLength(7);
    expect(processor.dropped).toBe(0);

    tracer.startSpan("after shutdown").end();
    await processor.shutdown(); // idempotent; reports what ended since
    expect(processor.dropped).toBe(1);
    expect(dropEvents(records).map((r) => r.event)).toEqual([
      {
        type: "journal.dropped",
        sink: "otel",
        dropped: 1,
        fromOffset: 7,
        toOffset: 7,
        reason: "write_failed",
      },
    ]);
    expect(errors).toMatchObject([{ code: "storage", details: { dropped: 1, reason: "write_failed" } }]);
    expect(spanNames(server.requests)).toHaveLength(7);
    detach();
  });

  it("503 until the exporter gives up: the batch is counted as dropped, the exporter's error and the drop reach onError", async () => {
    const server = await serve(() => ({ status: 503, headers: { "retry-after": "0" } }));
    const events = new EventSink("down");
    const records: EventRecord[] = [];
    events.subscribe((record) => records.push(record));
    const errors: unknown[] = [];
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces`, timeoutMillis: 10_000 }),
      { maxExportBatchSize: 5, scheduledDelayMillis: 60_000 },
    );
    processor.attachReporting(events, (error) => errors.push(error));
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    new OtelTracer(provider.getTracer("down")).attach(events);

    emitRuns(events, 8, "d");
    await provider.shutdown();

    // Two batches (5 + 3), each tried once and retried 5 times by the exporter.
    expect(server.requests).toHaveLength(12);
    expect(processor.dropped).toBe(8);
    const drops = dropEvents(records).map((r) => r.event);
    expect(drops.reduce((sum, e) => sum + e.dropped, 0)).toBe(8);
    expect(drops.every((e) => e.sink === "otel" && e.reason === "write_failed")).toBe(true);
    expect(drops[0]).toMatchObject({ fromOffset: 0 });
    expect(drops.at(-1)).toMatchObject({ toOffset: 7 });
    const storage = errors.filter((e) => e instanceof TinyAgentsError && e.code === "storage");
    expect(storage.length).toBe(drops.length);
    expect(errors.length).toBeGreaterThan(storage.length); // the exporter's own error comes first
    expect(errors[0]).not.toBeInstanceOf(TinyAgentsError);
  });

  it("an export that never answers times out and is counted as dropped", async () => {
    const server = await serve(() => ({ status: 200, hang: true }));
    const reports: DropReport[] = [];
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces`, timeoutMillis: 1000 }),
      { exportTimeoutMillis: 100, onDrop: (report) => reports.push(report), onError: () => {} },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    provider.getTracer("hang").startSpan("one").end();
    await processor.forceFlush();
    expect(processor.dropped).toBe(1);
    expect(reports).toMatchObject([{ sink: "otel", dropped: 1, reason: "write_failed" }]);
    await provider.shutdown(); // the exporter's own request times out after 1 s
    expect(processor.dropped).toBe(1);
  });

  it("batches on size at once and on time after scheduledDelayMillis, without a flush", async () => {
    const server = await serve(() => ({ status: 200 }));
    const bySize = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces` }),
      {
        maxExportBatchSize: 5,
        scheduledDelayMillis: 60_000,
      },
    );
    const sizeProvider = new BasicTracerProvider({ spanProcessors: [bySize] });
    for (let i = 0; i < 12; i += 1) sizeProvider.getTracer("size").startSpan(`s${i}`).end();
    await waitUntil(() => server.requests.length === 2);
    expect(server.requests.map((r) => spanNames([r]).length)).toEqual([5, 5]); // 2 left for the schedule
    await sizeProvider.shutdown();
    expect(server.requests.map((r) => spanNames([r]).length)).toEqual([5, 5, 2]);

    const byTime = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces` }),
      {
        scheduledDelayMillis: 20,
      },
    );
    const timeProvider = new BasicTracerProvider({ spanProcessors: [byTime] });
    for (let i = 0; i < 3; i += 1) timeProvider.getTracer("time").startSpan(`t${i}`).end();
    await waitUntil(() => server.requests.length === 4);
    expect(spanNames(server.requests.slice(3))).toEqual(["t0", "t1", "t2"]);
    await timeProvider.shutdown();
    expect(server.requests).toHaveLength(4);
  });

  it("OtelTracer({ spanProcessor }) reports the processor's drops on the sinks it is attached to and through attachObservability", async () => {
    const server = await serve(() => ({ status: 200 }));
    const processor = new ReportingBatchSpanProcessor(
      new OTLPTraceExporter({ url: `${server.url}/v1/traces` }),
      {
        maxQueueSize: 4,
        maxExportBatchSize: 4,
        scheduledDelayMillis: 60_000,
      },
    );
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });

    // attach(sink): the sink gets the event.
    const direct = new EventSink("direct");
    const directRecords: EventRecord[] = [];
    direct.subscribe((record) => directRecords.push(record));
    const otel = new OtelTracer(provider.getTracer("wired"), { spanProcessor: processor });
    const detach = otel.attach(direct);
    emitRuns(direct, 10, "a");
    await new Promise((resolve) => setImmediate(resolve));
    expect(dropEvents(directRecords).map((r) => r.event)).toMatchObject([
      { sink: "otel", dropped: 6, reason: "queue_full" },
    ]);
    detach();
    await processor.forceFlush();

    // attachObservability(events, { sinks: [otel] }): the pipeline's sink and onError.
    const events = new EventSink("piped");
    const records: EventRecord[] = [];
    events.subscribe((record) => records.push(record));
    const errors: unknown[] = [];
    const piped = new OtelTracer(provider.getTracer("wired"), { spanProcessor: processor, redact: false });
    const observability = attachObservability(events, {
      sinks: [piped],
      onError: (error) => errors.push(error),
    });
    emitRuns(events, 9, "b");
    await observability.close(); // flushes the processor (otel.flush) while still attached
    expect(spanNames(server.requests)).toHaveLength(8);
    await provider.shutdown();
    expect(dropEvents(records).map((r) => r.event)).toMatchObject([
      { sink: "otel", dropped: 5, reason: "queue_full" },
    ]);
    expect(errors).toMatchObject([{ code: "storage", details: { sink: "otel", dropped: 5 } }]);
    expect(spanNames(server.requests)).toHaveLength(8);
  });

  it("rejects a batch larger than the queue with a validation error", () => {
    const exporter = { export: () => {}, shutdown: async () => {} };
    expect(
      () => new ReportingBatchSpanProcessor(exporter, { maxQueueSize: 10, maxExportBatchSize: 11 }),
    ).toThrow(
      expect.objectContaining({ code: "validation", message: expect.stringContaining("maxExportBatchSize") }),
    );
    expect(() => new ReportingBatchSpanProcessor(exporter, { scheduledDelayMillis: -1 })).toThrow(
      expect.objectContaining({ code: "validation" }),
    );
  });
});
