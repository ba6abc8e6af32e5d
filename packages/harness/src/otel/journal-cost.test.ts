import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { type Usage, usage } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import { buildTraceModels } from "../langfuse/build-trace-models.js";
import { attachObservability } from "../observability/attach-observability.js";
import { InMemoryEventJournal } from "../observability/in-memory-event-journal.js";
import type { JournalEvents } from "../observability/journal-events.js";
import { createAgent } from "../runtime/create-agent.js";
import { ScriptedModel } from "../testkit/scripted-model.js";
import { StreamingMock } from "../testkit/streaming-mock.js";
import { OtelMetrics } from "./otel-metrics.js";
import { OtelTracer } from "./otel-tracer.js";

// Issue 40: exporters fed from a journal give each attempt's cost once, whether the journal has
// `cost.recorded` ("all", older versions) or only the attempt's end ("essential", the default).

const pricing = { inputPerMillion: 1_000_000, outputPerMillion: 2_000_000 }; // $1 / $2 per token
const tokens = (input: number, output: number): Usage => usage({ inputTokens: input, outputTokens: output });

/** A run whose first attempt streams usage then breaks (retried), then a priced answer. */
async function journalOf(journalEvents: JournalEvents): Promise<EventRecord[]> {
  const journal = new InMemoryEventJournal();
  const events = new EventSink("r");
  const observed = attachObservability(events, { journal, journalEvents });
  const model = new StreamingMock([
    [
      { type: "start" },
      { type: "usage", usage: tokens(10, 2) },
      { type: "error", message: "overloaded", status: 529, retryable: true },
    ],
    [{ type: "start" }, { type: "text_delta", text: "ok" }, { type: "usage", usage: tokens(3, 1) }],
  ]);
  const agent = createAgent({ model, pricing, policy: { retry: { maxRetries: 1, initialBackoffMs: 0 } } });
  await agent.stream("go", { runId: "r", events }).result;
  await observed.close();
  return journal.read("r");
}

/** A recording counter for the cost metric (the only instrument read here). */
function costPoints(records: readonly EventRecord[]): number[] {
  const points: number[] = [];
  const instrument = { record: () => {}, add: (value: number) => points.push(value) };
  const meter = {
    createHistogram: () => instrument,
    createCounter: () => instrument,
  } as unknown as ConstructorParameters<typeof OtelMetrics>[0];
  const metrics = new OtelMetrics(meter);
  for (const record of records) metrics.handle(record);
  return points;
}

let provider: BasicTracerProvider | undefined;
afterEach(async () => {
  await provider?.shutdown();
  provider = undefined;
});

/** The `tinyagents.cost.total_usd` of each chat span, in start order. */
function spanCosts(records: readonly EventRecord[]): unknown[] {
  const exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = new OtelTracer(provider.getTracer("test"));
  for (const record of records) tracer.handle(record);
  return exporter
    .getFinishedSpans()
    .filter((span: ReadableSpan) => span.name.startsWith("chat"))
    .sort((a, b) => a.startTime[1] - b.startTime[1] || a.startTime[0] - b.startTime[0])
    .map((span) => span.attributes["tinyagents.cost.total_usd"]);
}

/** The Langfuse generations' costs. */
function generationCosts(records: readonly EventRecord[]): unknown[] {
  const [trace] = buildTraceModels(records);
  return (trace?.observations ?? []).filter((o) => o.kind === "generation").map((o) => o.cost?.total);
}

/** A journal as a version before the fold wrote it (no cost on the attempt's end). */
function older(records: readonly EventRecord[]): EventRecord[] {
  return records.map((r) => {
    const event = { ...r.event } as AgentEvent & { cost?: unknown; usage?: unknown };
    if (event.type === "model.completed") delete event.cost;
    if (event.type === "model.failed") {
      delete event.cost;
      delete event.usage;
    }
    return { ...r, event: event as AgentEvent };
  });
}

describe("OTel and Langfuse exports from a journal: each attempt's cost once, in every format", () => {
  it("the cost metric and the chat spans' cost attribute per attempt; the call's generation costs both attempts", async () => {
    const essential = await journalOf("essential");
    const all = await journalOf("all");
    expect(essential.some((r) => r.event.type === "cost.recorded")).toBe(false);
    expect(all.some((r) => r.event.type === "cost.recorded")).toBe(true);
    // The broken attempt billed 10 in + 2 out ($14), the answer 3 + 1 ($5): one generation for
    // the call (its attempts are not observations of their own), costing $19.
    for (const records of [essential, all, older(all)]) {
      expect(costPoints(records)).toEqual([14, 5]);
      expect(spanCosts(records)).toEqual([14, 5]);
      expect(generationCosts(records)).toEqual([19]);
    }
  });

  it("an unpriced model: no cost point, no cost attribute", async () => {
    const journal = new InMemoryEventJournal();
    const events = new EventSink("u");
    const observed = attachObservability(events, { journal });
    await createAgent({ model: new ScriptedModel(["hi"], { usage: tokens(3, 1) }) }).run("go", {
      runId: "u",
      events,
    });
    await observed.close();
    const records = await journal.read("u");
    expect(costPoints(records)).toEqual([]);
    expect(spanCosts(records)).toEqual([undefined]);
  });
});
