import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { EventSink } from "../events/event-sink.js";
import { closeServers, type Reply, serve, spanNames } from "../langfuse/langfuse-server.fixture.js";
import { runScenario, scenarioSink } from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { OtelTracer } from "./otel-tracer.js";

// The OTel path's export under load and failure belongs to the SDK: OtelTracer hands spans to a
// BatchSpanProcessor (bounded queue) and the official OTLP exporter (retries 429/502/503/504,
// honouring Retry-After). These tests pin that the documented setup behaves so against a loopback
// receiver; bodies are decoded by the official proto definitions (langfuse-server.fixture).

afterEach(closeServers);

describe("OpenTelemetry export under load and failure (BatchSpanProcessor + exporter-trace-otlp-proto)", () => {
  it("a 429 with Retry-After, then 200: the batch is re-sent and every span of the run arrives", async () => {
    const script: Reply[] = [{ status: 429, headers: { "retry-after": "0" } }];
    const server = await serve(() => script.shift() ?? { status: 200 });
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new BatchSpanProcessor(
          new OTLPTraceExporter({ url: `${server.url}/v1/traces`, timeoutMillis: 10_000 }),
        ),
      ],
    });
    const otel = new OtelTracer(provider.getTracer("load-test"));
    const clock = new DeterministicClock();
    const sink = scenarioSink(clock);
    otel.attach(sink);
    await runScenario(sink, clock);
    await provider.shutdown(); // flushes
    expect(server.requests.length).toBe(2);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);
    const names = spanNames(server.requests.slice(1));
    expect(names).toContain("execute_tool get_weather");
    expect(names.filter((n) => n.startsWith("invoke_agent")).length).toBe(2);
  });

  it("a flood beyond maxQueueSize is bounded: the rest is dropped", async () => {
    const server = await serve(() => ({ status: 200 }));
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new BatchSpanProcessor(new OTLPTraceExporter({ url: `${server.url}/v1/traces` }), {
          maxQueueSize: 20,
          maxExportBatchSize: 20,
          scheduledDelayMillis: 60_000, // nothing leaves during the synchronous flood
        }),
      ],
    });
    const otel = new OtelTracer(provider.getTracer("load-test"));
    const events = new EventSink("flood");
    otel.attach(events);
    for (let i = 0; i < 100; i += 1) {
      const scope = { runId: `r${i}`, rootRunId: `r${i}`, depth: 0 };
      events.emit(scope, { type: "run.started", input: 1 });
      events.emit(scope, { type: "run.interrupted", reason: "flood" });
    }
    await provider.shutdown();
    // 100 spans offered; the processor holds at most maxQueueSize: one full batch leaves as soon
    // as it is full, the queue fills again, everything after that is dropped (logged via diag).
    const received = spanNames(server.requests).length;
    expect(received).toBeGreaterThanOrEqual(20);
    expect(received).toBeLessThanOrEqual(40);
  });
});
