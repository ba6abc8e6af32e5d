import { afterEach, describe, expect, it } from "vitest";
import { runScenario, scenarioSink } from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { LangfuseClient } from "./langfuse-client.js";
import { closeServers, serve } from "./langfuse-server.fixture.js";
import { base64ToHex, ExportTraceServiceRequest, hexToBase64, mapIds } from "./otlp-decode.fixture.js";

// Every OTLP payload the Langfuse exporter emits (protobuf, encoded by the official
// @opentelemetry/exporter-trace-otlp-proto), read back by the official OpenTelemetry proto
// definitions (the protobufjs code generated from opentelemetry-proto), not by our own reader.

afterEach(closeServers);

interface DecodedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

describe("OTLP payloads against the official proto definitions", () => {
  it("every request body is a valid ExportTraceServiceRequest whose OTLP/JSON form round-trips, int64 as strings", async () => {
    const clock = new DeterministicClock();
    const sink = scenarioSink(clock);
    const recorder = new EventRecorder();
    recorder.attach(sink);
    await runScenario(sink, clock);
    const server = await serve(() => ({ status: 200, body: "" }));
    // Small requests: several payloads, each checked.
    const client = LangfuseClient.direct(server.url, "pk-lf-a", "sk-lf-b", { maxRequestBytes: 8_000 });
    const result = await client.exportRun(recorder.records, {
      captureContent: true,
      userId: "u-1",
      tags: ["t"],
    });
    expect(server.requests.length).toBeGreaterThan(1);
    const spans: DecodedSpan[] = [];
    for (const request of server.requests) {
      expect(request.headers["content-type"]).toBe("application/x-protobuf");
      // Straight from the wire bytes with the official message type (throws on a malformed body).
      const message = ExportTraceServiceRequest.decode(request.bytes);
      const json = mapIds(
        ExportTraceServiceRequest.toObject(message, { longs: String, enums: Number, bytes: String }),
        base64ToHex,
      ) as { resourceSpans: { resource: unknown; scopeSpans: { scope: unknown; spans: DecodedSpan[] }[] }[] };
      // Its OTLP/JSON form (int64 as decimal strings, hex ids) survives the official
      // fromObject/encode/decode unchanged: known fields only, right types.
      const again = ExportTraceServiceRequest.fromObject(mapIds(json, hexToBase64));
      const bytes = ExportTraceServiceRequest.encode(again).finish();
      expect(Buffer.from(bytes).equals(request.bytes)).toBe(true);
      expect(json.resourceSpans[0]?.resource).toMatchObject({
        attributes: expect.arrayContaining([
          { key: "service.name", value: { stringValue: "tinyagents" } },
          { key: "telemetry.sdk.name", value: { stringValue: "tinyagents" } },
          { key: "service.version", value: { stringValue: expect.any(String) } },
        ]),
      });
      expect(json.resourceSpans[0]?.scopeSpans[0]?.scope).toMatchObject({ name: "tinyagents" });
      spans.push(...json.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
    }
    expect(spans.length).toBe(result.items);
    const chat = spans.find((span) => span.name.startsWith("chat "));
    expect(chat?.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(chat?.startTimeUnixNano).toMatch(/^\d{19}$/);
    const tokens = chat?.attributes.find((a) => a.key === "gen_ai.usage.input_tokens")?.value;
    expect(tokens).toEqual({ intValue: expect.stringMatching(/^\d+$/) });
    expect(spans.some((span) => span.name.startsWith("execute_tool "))).toBe(true);
    const ids = new Set(spans.map((span) => span.spanId));
    for (const span of spans)
      if (span.parentSpanId !== undefined) expect(ids.has(span.parentSpanId)).toBe(true);
  });
});
