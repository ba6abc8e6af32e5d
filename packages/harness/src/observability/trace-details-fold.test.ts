import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEventType, EventRecord } from "../contracts/agent-event.js";
import { EventSink } from "../events/event-sink.js";
import { buildTraceModels } from "../langfuse/build-trace-models.js";
import { toolRetryMiddleware } from "../middleware/library/tool-retry-middleware.js";
import type { Middleware } from "../middleware/middleware.js";
import { OtelTracer } from "../otel/otel-tracer.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { cassetteFromObservations } from "../testkit/replay/cassette-from-journal.js";
import { ScriptedModel, type ScriptStep } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import { errorToolResult } from "../tool/tool-result.js";
import type { AgentObservation } from "./agent-observation.js";
import { attachObservability } from "./attach-observability.js";
import { InMemoryEventJournal } from "./in-memory-event-journal.js";
import { legacyTraceDetailsMiddleware } from "./legacy-trace-details.fixture.js";
import { traceDetailsMiddleware } from "./trace-details-middleware.js";
import { separateTraceDetails, withSeparateTraceDetails } from "./trace-details-records.js";
import { runScenario, SECRET, scenarioSink } from "./trace-scenario.fixture.js";

// Trace details ride on the records a call writes anyway. The scenario (a retried call, two tool
// calls, a sub-agent, a secret in the prompt and in a tool result) is journaled three ways: no
// trace details, the folded details, and the separate records of earlier versions
// (`legacyTraceDetailsMiddleware`). Every reader must make the same of the last two.

const LEGACY: readonly AgentEventType[] = ["model.request", "model.response", "tool.result"];

let contextManager: AsyncLocalStorageContextManager;

beforeEach(() => {
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
});

afterEach(() => {
  context.disable();
  contextManager.disable();
});

/** The scenario's journal (default options of `attachObservability`: essential, redacted). */
async function journal(traceDetails: Middleware): Promise<AgentObservation[]> {
  const clock = new DeterministicClock();
  const sink = scenarioSink(clock);
  const store = new InMemoryEventJournal();
  const observability = attachObservability(sink, { journal: store });
  const outcome = await runScenario(sink, clock, { traceDetails });
  expect(outcome.error).toBeUndefined();
  await observability.close();
  return store.read("run-1");
}

const none = (): Middleware => ({ name: "noTraceDetails" });
const folded = (captureContent = true) => traceDetailsMiddleware({ captureContent });
const legacy = (captureContent = true) => legacyTraceDetailsMiddleware({ captureContent });

/** The spans an `OtelTracer` makes of `records`, without their random ids. */
async function otelSpans(records: readonly AgentObservation[], captureContent: boolean) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const otel = new OtelTracer(provider.getTracer("t"), { captureContent });
  for (const record of records) otel.handle(record);
  otel.endAll();
  const spans = exporter.getFinishedSpans();
  const nameOf = (span: ReadableSpan | undefined) =>
    spans.find((s) => s.spanContext().spanId === span?.parentSpanContext?.spanId)?.name;
  const view = spans.map((span) => ({
    name: span.name,
    kind: span.kind,
    parent: nameOf(span),
    start: span.startTime,
    end: span.endTime,
    status: span.status,
    attributes: span.attributes,
    events: span.events.map((event) => ({
      name: event.name,
      attributes: event.attributes,
      time: event.time,
    })),
  }));
  await provider.shutdown();
  return view;
}

/** The Langfuse trace models of `records`, without what names a record's place in its journal. */
function langfuseModels(records: readonly AgentObservation[], captureContent: boolean) {
  return buildTraceModels(records, { captureContent, onContentWarning: () => {} }).map((model) => ({
    ...model,
    observations: model.observations.map((obs) => {
      const { eventId: _id, offset: _offset, ...metadata } = obs.metadata;
      return { ...obs, key: obs.kind === "event" ? obs.name : obs.key, metadata };
    }),
  }));
}

describe("trace details folded into a call's records", () => {
  it("add no journal record: the journal holds as many records as without trace details", async () => {
    const plain = await journal(none());
    const withDetails = await journal(folded());
    const earlier = await journal(legacy());
    expect(withDetails.map((o) => o.event.type)).toEqual(plain.map((o) => o.event.type));
    expect(withDetails.some((o) => LEGACY.includes(o.event.type))).toBe(false);
    // The details are there: on the first attempt of each call, each answer and each tool result.
    const carrying = withDetails.filter((o) => "details" in o.event).map((o) => o.event.type);
    expect(carrying).toEqual([
      "model.started", // the parent's first call (its retried attempt carries none)
      "model.completed",
      "model.started", // the sub-agent's call, while get_weather runs
      "model.completed",
      "tool.completed", // get_weather
      "tool.completed", // researcher
      "model.started", // the parent's answer
      "model.completed",
    ]);
    // Earlier versions wrote one more record per model call and per tool call.
    const separate = earlier.filter((o) => LEGACY.includes(o.event.type)).length;
    expect(separate).toBe(carrying.length);
    expect(earlier.length).toBe(plain.length + separate);
  });

  it("give the OpenTelemetry exporter the same spans as the separate records of earlier journals", async () => {
    for (const capture of [true, false]) {
      const current = await otelSpans(await journal(folded(capture)), capture);
      const earlier = await otelSpans(await journal(legacy(capture)), capture);
      expect(current).toEqual(earlier);
      // Details did arrive: response ids, tool descriptions, the prompt with content capture.
      const text = JSON.stringify(current);
      expect(text).toContain("chatcmpl-");
      expect(text).toContain("Current weather for a city");
      expect(text.includes("What is the weather in Paris?")).toBe(capture);
      expect(text).not.toContain(SECRET);
    }
  });

  it("give the Langfuse exporter the same trace as the separate records of earlier journals", async () => {
    for (const capture of [true, false]) {
      const current = langfuseModels(await journal(folded(capture)), capture);
      const earlier = langfuseModels(await journal(legacy(capture)), capture);
      expect(current).toEqual(earlier);
      expect(JSON.stringify(current)).toContain("chatcmpl-");
      expect(JSON.stringify(current)).not.toContain(SECRET);
    }
  });

  it("give replay the same cassette as the separate records of earlier journals", async () => {
    const current = cassetteFromObservations("run-1", await journal(folded()));
    const earlier = cassetteFromObservations("run-1", await journal(legacy()));
    expect(current).toEqual(earlier);
  });

  it("are scrubbed by the journal's redaction like every field", async () => {
    const records = await journal(folded());
    const text = JSON.stringify(records);
    expect(text).toContain("[REDACTED]");
    expect(text).not.toContain(SECRET);
  });
});

describe("separateTraceDetails", () => {
  it("turns a folded record into the separate records, envelope kept, details off the lifecycle event", async () => {
    const records = await journal(folded());
    const started = records.find((o) => o.event.type === "model.started" && "details" in o.event);
    if (started === undefined) throw new Error("no model.started with details");
    const parts = separateTraceDetails(started);
    expect(parts?.map((o) => o.event.type)).toEqual(["model.request", "model.started"]);
    expect(parts?.every((o) => o.id === started.id && o.offset === started.offset)).toBe(true);
    expect("details" in (parts?.[1]?.event ?? {})).toBe(false);
    // A record without details is read as it is; a list without any is the same list.
    const plain = await journal(none());
    expect(plain.every((o) => separateTraceDetails(o) === undefined)).toBe(true);
    expect(withSeparateTraceDetails(plain)).toBe(plain);
    expect(withSeparateTraceDetails(records).length).toBe(
      records.length + records.filter((o) => "details" in o.event).length,
    );
  });
});

/**
 * A one-tool run's live records: the model calls `flaky`, which throws (its first `failures`
 * calls, then returns "OK-RESULT"), then answers. `before`: middleware registered before
 * `traceDetails` (earlier versions' one had to be innermost, registered last).
 */
async function failingToolRun(
  traceDetails: Middleware,
  errorPolicy: "returnError" | "fail",
  options: { failures?: number; before?: Middleware[] } = {},
) {
  const clock = new DeterministicClock();
  const failures = options.failures ?? Number.POSITIVE_INFINITY;
  let calls = 0;
  const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() })
    .registerModel(
      "m",
      new ScriptedModel([{ toolCalls: [{ name: "flaky", id: "t1", arguments: {} }] }, "done"]),
    )
    .registerTool(
      tool({
        name: "flaky",
        description: "Fails on purpose",
        inputSchema: { type: "object" },
        errorPolicy,
        idempotent: true,
        execute: () => {
          if (++calls <= failures) throw new Error(`boom ${calls}`);
          return "OK-RESULT";
        },
      }),
    );
  for (const m of options.before ?? []) harness.use(m);
  harness.use(traceDetails);
  const sink = new EventSink("run-f", { now: () => clock.now() });
  const records: EventRecord[] = [];
  sink.subscribe((record) => records.push(record));
  await lowerLayer(harness).invokeCollectingPartial(undefined, undefined, { runId: "run-f" }, "go", {
    events: sink,
  });
  return records;
}

describe("trace details of a failed tool call", () => {
  it("ride on tool.failed when the failure became an error result, and export as the separate record did", async () => {
    const current = await failingToolRun(folded(), "returnError");
    const failed = current.find((o) => o.event.type === "tool.failed");
    expect(failed?.event).toMatchObject({
      details: { description: "Fails on purpose", result: expect.stringContaining("boom") },
    });
    const earlier = await failingToolRun(legacy(), "returnError");
    expect(langfuseModels(current, true)).toEqual(langfuseModels(earlier, true));
    expect(JSON.stringify(langfuseModels(current, true))).toContain("Fails on purpose");
    expect(await otelSpans(current, true)).toEqual(await otelSpans(earlier, true));
  });

  it("are not recorded when the failure fails the run (no result reached the model)", async () => {
    const current = await failingToolRun(folded(), "fail");
    const failed = current.find((o) => o.event.type === "tool.failed");
    expect(failed).toBeDefined();
    expect(failed?.event).not.toHaveProperty("details");
    const earlier = await failingToolRun(legacy(), "fail");
    expect(earlier.some((o) => o.event.type === "tool.result")).toBe(false);
  });
});

describe("trace details of a tool call retried by a wrap (toolRetryMiddleware)", () => {
  const retried = (traceDetails: Middleware, errorPolicy: "returnError" | "fail", failures: number) =>
    failingToolRun(traceDetails, errorPolicy, {
      failures,
      before: [toolRetryMiddleware({ policy: { initialBackoffMs: 10 } })],
    });

  it("record the result the model saw (the retry's), as earlier versions' records did", async () => {
    for (const errorPolicy of ["returnError", "fail"] as const) {
      const current = await retried(folded(), errorPolicy, 1);
      // The model got the retry's result.
      const request = current.filter((o) => o.event.type === "model.started").at(-1);
      expect(JSON.stringify(request?.event)).toContain("OK-RESULT");
      // Earlier versions' middleware had a wrap hook: a throw through it was reported as its
      // `middleware.failed` too (not a trace detail; the folded details have no hook).
      const earlier = (await retried(legacy(), errorPolicy, 1)).filter(
        (o) => o.event.type !== "middleware.failed",
      );
      const cassette = cassetteFromObservations("run-f", current);
      expect(cassette).toEqual(cassetteFromObservations("run-f", earlier));
      expect(cassette.run.toolCalls[0]).toMatchObject({ result: "OK-RESULT", isError: false });
      const langfuse = langfuseModels(current, true);
      expect(langfuse).toEqual(langfuseModels(earlier, true));
      const toolObservation = langfuse[0]?.observations.find((o) => o.kind === "tool");
      expect(toolObservation?.output).toBe("OK-RESULT");
      expect(await otelSpans(current, true)).toEqual(await otelSpans(earlier, true));
    }
  });

  it("record the attempt that ended the call and the result the model saw when the retries run out", async () => {
    const current = await retried(folded(), "returnError", 10);
    const results = withSeparateTraceDetails(current)
      .filter((o) => o.event.type === "tool.result")
      .map((o) => (o.event as { result?: unknown }).result);
    // The middle attempt's result never reached the model: the readers keep the last anyway.
    expect(results).toEqual(['Error: tool "flaky" failed: boom 1', 'Error: tool "flaky" failed: boom 3']);
    const earlier = await retried(legacy(), "returnError", 10);
    expect(cassetteFromObservations("run-f", current)).toEqual(cassetteFromObservations("run-f", earlier));
    expect(langfuseModels(current, true)).toEqual(langfuseModels(earlier, true));
  });

  it("record nothing of an attempt a wrap gave up on, even when it ends after the run", async () => {
    let release: (() => void) | undefined;
    let late: Promise<unknown> | undefined;
    const giveUp: Middleware = {
      name: "giveUp",
      wrapToolCall(_ctx, call, next) {
        late = next(call); // the tool goes on; the wrap answers without it
        return Promise.resolve(errorToolResult(call.id, call.name, "WRAP-TIMEOUT", 0));
      },
    };
    const harness = new AgentHarness<undefined, undefined>({ ids: new DeterministicIds() })
      .registerModel(
        "m",
        new ScriptedModel([{ toolCalls: [{ name: "slow", id: "t1", arguments: {} }] }, "done"]),
      )
      .registerTool(
        tool({
          name: "slow",
          description: "Answers after the run",
          inputSchema: { type: "object" },
          execute: () =>
            new Promise<string>((resolve) => {
              release = () => resolve("LATE-RESULT");
            }),
        }),
      )
      .use(giveUp)
      .use(folded());
    const sink = new EventSink("run-g");
    const records: EventRecord[] = [];
    sink.subscribe((record) => records.push(record));
    await lowerLayer(harness).invokeCollectingPartial(undefined, undefined, { runId: "run-g" }, "go", {
      events: sink,
    });
    expect(records.at(-1)?.event.type).toBe("run.completed");
    release?.();
    await late;
    expect(records.at(-1)?.event.type).toBe("run.completed"); // nothing after the run's end
    expect(JSON.stringify(records)).not.toContain("LATE-RESULT");
    expect(cassetteFromObservations("run-g", records).run.toolCalls[0]).toMatchObject({
      result: "WRAP-TIMEOUT",
    });
  });

  it("add no record to a retried call without trace details", async () => {
    const plain = await retried(none(), "returnError", 1);
    expect(plain.some((o) => LEGACY.includes(o.event.type))).toBe(false);
  });
});

describe("a model call in flight", () => {
  it("has its request's details on record before the provider answers (a crash mid-call keeps them)", async () => {
    let answer: (() => void) | undefined;
    let called: (() => void) | undefined;
    const inFlight = new Promise<void>((resolve) => {
      called = resolve;
    });
    const hanging: ScriptStep = () =>
      new Promise((resolve) => {
        answer = () => resolve("late answer");
        called?.();
      });
    const harness = new AgentHarness<undefined, undefined>({ ids: new DeterministicIds() })
      .registerModel("m", new ScriptedModel([hanging]))
      .use(folded());
    const sink = new EventSink("run-h");
    const store = new InMemoryEventJournal();
    const observability = attachObservability(sink, { journal: store });
    const run = lowerLayer(harness).invokeCollectingPartial(
      undefined,
      undefined,
      { runId: "run-h" },
      "the prompt",
      {
        events: sink,
      },
    );
    await inFlight;
    await observability.flush();
    const journaled = await store.read("run-h");
    const started = journaled.find((o) => o.event.type === "model.started");
    expect(JSON.stringify(started?.event)).toContain("the prompt");
    expect(journaled.some((o) => o.event.type === "model.completed")).toBe(false);
    answer?.();
    await run;
    await observability.close();
  });
});
