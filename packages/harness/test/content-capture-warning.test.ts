/**
 * One content switch, or a warning naming the missing half (issue 35): trace content needs the
 * exporter's `captureContent` AND `traceDetailsMiddleware({ captureContent: true })`. With only
 * one of them on, the OTel tracer and the Langfuse exporter warn once, saying which half to add;
 * with both on or both off they say nothing.
 */
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createAgent, type EventRecord } from "@tinyagents/harness";
import { buildTraceModels } from "@tinyagents/harness/langfuse";
import { traceDetailsMiddleware } from "@tinyagents/harness/observability";
import { OtelTracer } from "@tinyagents/harness/otel";
import { DeterministicClock, DeterministicIds, ScriptedModel } from "@tinyagents/harness/testkit";
import { describe, expect, it } from "vitest";

type Middleware = "content" | "no-content" | "none";

/** The records of two runs of an agent with the given trace-details middleware. */
async function records(middleware: Middleware): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  const agent = createAgent({
    model: new ScriptedModel(["one", "two"]),
    clock: new DeterministicClock(),
    ids: new DeterministicIds(),
    middleware:
      middleware === "none" ? [] : [traceDetailsMiddleware({ captureContent: middleware === "content" })],
  });
  await agent.run("first", { onEvent: (r) => out.push(r) });
  await agent.run("second", { onEvent: (r) => out.push(r) });
  return out;
}

function otelWarnings(captureContent: boolean, recorded: EventRecord[]): string[] {
  const warnings: string[] = [];
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new InMemorySpanExporter())],
  });
  const otel = new OtelTracer(provider.getTracer("t"), {
    captureContent,
    onContentWarning: (message) => warnings.push(message),
  });
  for (const record of recorded) otel.write(record);
  return warnings;
}

function langfuseWarnings(captureContent: boolean, recorded: EventRecord[]): string[] {
  const warnings: string[] = [];
  buildTraceModels(recorded, { captureContent, onContentWarning: (message) => warnings.push(message) });
  return warnings;
}

describe.each([
  ["OtelTracer", otelWarnings],
  ["the Langfuse exporter", langfuseWarnings],
] as const)("%s content-capture warning", (exporter, warningsOf) => {
  it("exporter on, middleware without content: one warning naming traceDetailsMiddleware({ captureContent: true })", async () => {
    const warnings = warningsOf(true, await records("no-content"));
    expect(warnings).toHaveLength(exporter === "OtelTracer" ? 1 : 2); // Langfuse: once per trace
    expect(warnings[0]).toContain(`${exporter} has captureContent: true`);
    expect(warnings[0]).toContain("traceDetailsMiddleware({ captureContent: true })");
  });

  it("exporter on, no middleware at all: the warning says to register it", async () => {
    const warnings = warningsOf(true, await records("none"));
    expect(warnings[0]).toContain("no traceDetailsMiddleware is registered");
  });

  it("middleware records content, exporter off: the warning names the exporter's captureContent", async () => {
    const warnings = warningsOf(false, await records("content"));
    expect(warnings[0]).toContain(`but ${exporter} has captureContent off`);
  });

  it("both on, or both off: no warning", async () => {
    expect(warningsOf(true, await records("content")), "both on").toEqual([]);
    expect(warningsOf(false, await records("no-content"))).toEqual([]);
    expect(warningsOf(false, await records("none"))).toEqual([]);
  });
});
