import { createRequire } from "node:module";
import { afterEach, describe, expect, it } from "vitest";
import { runScenario, scenarioSink } from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { LangfuseClient } from "./langfuse-client.js";
import { closeServers, serve } from "./langfuse-server.fixture.js";

// Every OTLP payload the Langfuse exporter emits, read back by the official OpenTelemetry proto
// definitions: the protobufjs code generated from opentelemetry-proto that
// @opentelemetry/otlp-transformer shipped up to 0.212 (a devDependency under an alias; later
// versions replaced it with a hand-written writer that cannot decode). Not our own reader.

interface Message {
  fromObject(value: unknown): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
const root = createRequire(import.meta.url)("otlp-transformer-protobufjs/build/src/generated/root.js");
const ExportTraceServiceRequest: Message =
  root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

afterEach(closeServers);

/** OTLP/JSON ids are hex (a documented deviation from proto3 JSON's base64): convert both ways. */
function mapIds(value: unknown, convert: (id: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => mapIds(item, convert));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      (key === "traceId" || key === "spanId" || key === "parentSpanId") && typeof item === "string"
        ? convert(item)
        : mapIds(item, convert);
  }
  return out;
}
const hexToBase64 = (hex: string) => Buffer.from(hex, "hex").toString("base64");
const base64ToHex = (b64: string) => Buffer.from(b64, "base64").toString("hex");

describe("OTLP payloads against the official proto definitions", () => {
  it("every request body survives a protobuf round trip unchanged: known fields only, int64 as strings", async () => {
    const clock = new DeterministicClock();
    const sink = scenarioSink(clock);
    const recorder = new EventRecorder();
    recorder.attach(sink);
    await runScenario(sink, clock);
    const server = await serve(() => ({ status: 200, body: "{}" }));
    // Small requests: several payloads, each checked.
    const client = LangfuseClient.direct(server.url, "pk-lf-a", "sk-lf-b", { maxRequestBytes: 8_000 });
    await client.exportRun(recorder.records, { captureContent: true, userId: "u-1", tags: ["t"] });
    expect(server.requests.length).toBeGreaterThan(1);
    for (const request of server.requests) {
      const sent = JSON.parse(request.body);
      const message = ExportTraceServiceRequest.fromObject(mapIds(sent, hexToBase64));
      const bytes = ExportTraceServiceRequest.encode(message).finish();
      const decoded = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(bytes), {
        longs: String,
        enums: Number,
        bytes: String,
      });
      // A misnamed field, a wrong type or an int64 written as a JSON number would not come back equal.
      expect(mapIds(decoded, base64ToHex)).toEqual(sent);
    }
  });
});
