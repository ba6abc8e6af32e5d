import { AgentHarness, type EventRecord, EventSink } from "@tinyagents/harness";
import { LangfuseClient, type LangfuseScore, otlpSpanId, otlpTraceId } from "@tinyagents/harness/langfuse";
import {
  DeterministicClock,
  DeterministicIds,
  EventRecorder,
  FakeTool,
  ScriptedModel,
} from "@tinyagents/harness/testkit";
import { ProviderError, usage } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import { rejection } from "../../test/support/thrown.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { acceptAll, closeServers, type Received, serve } from "./langfuse-server.fixture.js";

const PUBLIC_KEY = "pk-lf-public-1234";
const SECRET_KEY = "sk-lf-very-secret-5678";

afterEach(closeServers);

interface Envelope {
  id: string;
  timestamp: string;
  type: string;
  body: Record<string, unknown>;
}

function batchOf(request: Received | undefined): Envelope[] {
  return JSON.parse(request?.body ?? "{}").batch as Envelope[];
}

/** One model call (40 ms), no tools. */
async function tinyRun(): Promise<EventRecord[]> {
  const clock = new DeterministicClock();
  const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() });
  harness.registerModel(
    "main",
    new ScriptedModel(
      [
        async () => {
          await clock.sleep(40);
          return "hello";
        },
      ],
      { modelId: "gpt-x", usage: usage({ inputTokens: 10, outputTokens: 2 }) },
    ),
  );
  const sink = new EventSink("run-1", { now: () => clock.now() });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  await lowerLayer(harness).invoke(undefined, undefined, { runId: "run-1" }, "hi", { events: sink });
  return recorder.records;
}

/** A retried model call (attempts 1 and 2), a tool call, then the answer. */
async function toolRun(): Promise<EventRecord[]> {
  const clock = new DeterministicClock();
  const harness = new AgentHarness<undefined, undefined>({ clock, ids: new DeterministicIds() });
  harness
    .registerModel(
      "main",
      new ScriptedModel(
        [
          new ProviderError({ provider: "openai", message: "busy", kind: "upstream_unhealthy", status: 503 }),
          { toolCalls: [{ name: "lookup", id: "call-a" }] },
          "done",
        ],
        { modelId: "gpt-x" },
      ),
    )
    .withPolicy({ retry: { initialBackoffMs: 10 } })
    .registerTool(FakeTool.returning("lookup", "found"));
  const sink = new EventSink("run-2", { now: () => clock.now() });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  await lowerLayer(harness).invoke(undefined, undefined, { runId: "run-2" }, "go", { events: sink });
  return recorder.records;
}

/** Records of a run that ended with `end` (built by hand through a sink). */
function endedRun(runId: string, end: "failed" | "interrupted"): EventRecord[] {
  const sink = new EventSink(runId, { now: () => 1_700_000_000_000 });
  const recorder = new EventRecorder();
  recorder.attach(sink);
  const scope = { runId, rootRunId: runId, depth: 0 };
  sink.emit(scope, { type: "run.started", input: 1 });
  if (end === "failed") {
    sink.emit(scope, {
      type: "run.failed",
      error: { name: "ProviderError", code: "provider", message: "upstream down" },
    });
  } else {
    sink.emit(scope, { type: "run.interrupted", reason: "approval required" });
  }
  return recorder.records;
}

describe("Langfuse scores with the ingestion transport", () => {
  it("sends score-create events in the same batch, after the trace's envelopes", async () => {
    const records = await tinyRun();
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });

    const result = await client.exportRun(records, {
      environment: "prod",
      successScore: true,
      scores: [
        { name: "quality", value: 0.9, comment: "good", metadata: { judge: "gpt-judge" } },
        {
          name: "tone",
          value: "friendly",
          observation: { kind: "generation", runId: "run-1", callId: "run-1-model-1" },
        },
      ],
    });

    expect(result).toMatchObject({
      transport: "ingestion",
      requests: 1,
      items: 6,
      scores: 3,
      failed: [],
      ok: true,
    });
    expect(server.requests).toHaveLength(1);
    const batch = batchOf(server.requests[0]);
    expect(batch.slice(0, 3).map((e) => [e.type, e.id])).toEqual([
      ["trace-create", "run-1:trace-create"],
      ["span-create", "run-1:run:run-1:create"],
      ["generation-create", "run-1:model:run-1:run-1-model-1:create"],
    ]);
    // The run ended 40 ms after the clock's start: the default score time is the trace's end.
    expect(batch.slice(3)).toEqual([
      {
        id: "run-1:score:quality:76f23b22c473dd42",
        timestamp: "2023-11-14T22:13:20.040Z",
        type: "score-create",
        body: {
          id: "run-1:score:quality",
          traceId: "run-1",
          name: "quality",
          value: 0.9,
          dataType: "NUMERIC",
          comment: "good",
          metadata: { judge: "gpt-judge" },
          environment: "prod",
        },
      },
      {
        id: "run-1:model:run-1:run-1-model-1:score:tone:030e7191baa641dc",
        timestamp: "2023-11-14T22:13:20.040Z",
        type: "score-create",
        body: {
          id: "run-1:model:run-1:run-1-model-1:score:tone",
          traceId: "run-1",
          observationId: "run-1:model:run-1:run-1-model-1",
          name: "tone",
          value: "friendly",
          dataType: "CATEGORICAL",
          environment: "prod",
        },
      },
      {
        id: "run-1:score:success:b1b99c1c22f9bb10",
        timestamp: "2023-11-14T22:13:20.040Z",
        type: "score-create",
        body: {
          id: "run-1:score:success",
          traceId: "run-1",
          name: "success",
          value: 1,
          dataType: "BOOLEAN",
          comment: "run.completed",
          environment: "prod",
        },
      },
    ]);
    // The observation a score names is one the batch creates.
    expect(batch.map((e) => e.body.id)).toContain(batch[4]?.body.observationId);
  });

  it("targets runs, tools and the one generation of a retried call; BOOLEAN goes on the wire as 1/0", async () => {
    const records = await toolRun();
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });

    await client.exportRun(records, {
      scores: [
        { name: "helpful", value: false, dataType: "BOOLEAN", id: "feedback-77" },
        { name: "grounded", value: 1, observation: { kind: "run", runId: "run-2" } },
        { name: "useful", value: true, observation: { kind: "tool", runId: "run-2", callId: "call-a" } },
        {
          name: "format",
          value: "ok",
          observation: { kind: "generation", runId: "run-2", callId: "run-2-model-1" },
        },
        {
          // Every attempt is the same generation: naming one still targets it.
          id: "format-again",
          name: "format",
          value: "bad",
          observation: { kind: "generation", runId: "run-2", callId: "run-2-model-1", attempt: 1 },
        },
      ],
    });

    const scores = batchOf(server.requests[0])
      .filter((e) => e.type === "score-create")
      .map((e) => e.body);
    expect(scores).toEqual([
      { id: "feedback-77", traceId: "run-2", name: "helpful", value: 0, dataType: "BOOLEAN" },
      {
        id: "run-2:run:run-2:score:grounded",
        traceId: "run-2",
        observationId: "run-2:run:run-2",
        name: "grounded",
        value: 1,
        dataType: "NUMERIC",
      },
      {
        id: "run-2:tool:run-2:call-a:score:useful",
        traceId: "run-2",
        observationId: "run-2:tool:run-2:call-a",
        name: "useful",
        value: 1,
        dataType: "BOOLEAN",
      },
      {
        id: "run-2:model:run-2:run-2-model-1:score:format",
        traceId: "run-2",
        observationId: "run-2:model:run-2:run-2-model-1",
        name: "format",
        value: "ok",
        dataType: "CATEGORICAL",
      },
      {
        id: "format-again",
        traceId: "run-2",
        observationId: "run-2:model:run-2:run-2-model-1",
        name: "format",
        value: "bad",
        dataType: "CATEGORICAL",
      },
    ]);
  });

  it("successScore: false for a failed run (with its error code), none for an interrupted one", async () => {
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });

    const failed = await client.exportRun(endedRun("run-f", "failed"), { successScore: { name: "run_ok" } });
    const interrupted = await client.exportRun(endedRun("run-i", "interrupted"), { successScore: true });
    const none = await client.exportRun(endedRun("run-n", "failed"));

    expect([failed.scores, interrupted.scores, none.scores]).toEqual([1, 0, 0]);
    expect(batchOf(server.requests[0]).at(-1)).toEqual({
      id: "run-f:score:run_ok:22a2ef780db25bba",
      timestamp: "2023-11-14T22:13:20.000Z",
      type: "score-create",
      body: {
        id: "run-f:score:run_ok",
        traceId: "run-f",
        name: "run_ok",
        value: 0,
        dataType: "BOOLEAN",
        comment: "run.failed (provider)",
      },
    });
  });

  it("reports score envelopes a 207 rejects, and re-sends identical scores with the same envelope ids", async () => {
    const records = await tinyRun();
    const server = await serve((request) => {
      const batch = JSON.parse(request.body).batch as Envelope[];
      const bad = batch.filter((e) => e.type === "score-create" && e.body.name === "bad");
      return {
        status: 207,
        body: JSON.stringify({
          successes: batch.filter((e) => !bad.includes(e)).map((e) => ({ id: e.id, status: 201 })),
          errors: bad.map((e) => ({ id: e.id, status: 400, message: "score config mismatch" })),
        }),
      };
    });
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });
    const scores: LangfuseScore[] = [
      { name: "good", value: 1 },
      { name: "bad", value: "x", configId: "cfg-1" },
    ];

    const result = await client.exportRun(records, { scores });
    await client.exportRun(records, { scores });
    await client.exportRun(records, { scores: [{ name: "good", value: 2 }] });

    const badId = batchOf(server.requests[0]).find((e) => e.body.name === "bad")?.id;
    expect(result.ok).toBe(false);
    expect(result.failed).toEqual([{ id: badId, status: 400, message: "score config mismatch" }]);
    const good = server.requests.map((r) => batchOf(r).find((e) => e.body.name === "good"));
    expect(good[0]?.id).toBe(good[1]?.id);
    expect(good[2]?.body.id).toBe(good[0]?.body.id); // same score, updated
    expect(good[2]?.id).not.toBe(good[0]?.id); // a new envelope, so Langfuse does not drop it as a duplicate
    expect(batchOf(server.requests[0]).find((e) => e.body.name === "bad")?.body.configId).toBe("cfg-1");
  });
});

describe("Langfuse scores with the OTLP transport", () => {
  it("sends spans over OTLP, then the scores to the ingestion endpoint with the OTLP trace and span ids", async () => {
    const records = await toolRun();
    const server = await serve((request) =>
      request.path.endsWith("/ingestion") ? acceptAll(request) : { status: 200, body: "{}" },
    );
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY);
    expect(client.scoreEndpoint).toBe(`${server.url}/api/public/ingestion`);

    const result = await client.exportRun(records, {
      successScore: true,
      scores: [
        { name: "useful", value: true, observation: { kind: "tool", runId: "run-2", callId: "call-a" } },
      ],
    });

    expect(result).toMatchObject({ transport: "otlp", requests: 2, scores: 2, ok: true, failed: [] });
    expect(server.requests.map((r) => r.path)).toEqual([
      "/api/public/otel/v1/traces",
      "/api/public/ingestion",
    ]);
    const traceId = otlpTraceId("run-2");
    const toolSpanId = otlpSpanId("run-2", "tool:run-2:call-a");
    const spans = JSON.parse(server.requests[0]?.body ?? "{}").resourceSpans[0].scopeSpans[0].spans as {
      spanId: string;
      name: string;
    }[];
    expect(spans.find((s) => s.spanId === toolSpanId)?.name).toBe("execute_tool lookup");
    expect(batchOf(server.requests[1]).map((e) => [e.type, e.body])).toEqual([
      [
        "score-create",
        {
          id: `${toolSpanId}:score:useful`,
          traceId,
          observationId: toolSpanId,
          name: "useful",
          value: 1,
          dataType: "BOOLEAN",
        },
      ],
      [
        "score-create",
        {
          id: `${traceId}:score:success`,
          traceId,
          name: "success",
          value: 1,
          dataType: "BOOLEAN",
          comment: "run.completed",
        },
      ],
    ]);
  });

  it("makes no score request when there are no scores", async () => {
    const records = await tinyRun();
    const server = await serve(() => ({ status: 200, body: "{}" }));
    const result = await LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY).exportRun(records, {
      successScore: false,
    });
    expect(result).toMatchObject({ requests: 1, scores: 0, ok: true });
  });
});

describe("LangfuseClient.exportScores (scoring later)", () => {
  it("scores an exported run by its root run id, with the client's id scheme", async () => {
    const server = await serve(acceptAll);
    const ingestion = LangfuseClient.proxy(server.url, "token-123");
    const otlp = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, {
      scorePath: "/custom/ingestion",
    });
    const feedback: LangfuseScore[] = [
      {
        rootRunId: "run-9",
        name: "user_feedback",
        value: true,
        comment: "thumbs up",
        timestamp: 1_700_000_000_000,
      },
      {
        rootRunId: "run-9",
        name: "latency_ok",
        value: 0.5,
        observation: { kind: "generation", runId: "run-9", callId: "run-9-model-1", attempt: 1 },
        timestamp: 1_700_000_000_000,
      },
    ];

    const viaProxy = await ingestion.exportScores(feedback, { environment: "staging" });
    const viaOtlp = await otlp.exportScores(feedback.slice(0, 1));

    expect(viaProxy).toMatchObject({
      transport: "ingestion",
      endpoint: `${server.url}/telemetry/langfuse/ingestion`,
      traceIds: ["run-9"],
      requests: 1,
      items: 2,
      scores: 2,
      ok: true,
    });
    expect(batchOf(server.requests[0])).toEqual([
      {
        id: "run-9:score:user_feedback:1aca64a63fe17613",
        timestamp: "2023-11-14T22:13:20.000Z",
        type: "score-create",
        body: {
          id: "run-9:score:user_feedback",
          traceId: "run-9",
          name: "user_feedback",
          value: 1,
          dataType: "BOOLEAN",
          comment: "thumbs up",
          environment: "staging",
        },
      },
      {
        id: expect.stringMatching(/^run-9:model:run-9:run-9-model-1:score:latency_ok:[0-9a-f]{16}$/),
        timestamp: "2023-11-14T22:13:20.000Z",
        type: "score-create",
        body: {
          id: "run-9:model:run-9:run-9-model-1:score:latency_ok",
          traceId: "run-9",
          observationId: "run-9:model:run-9:run-9-model-1",
          name: "latency_ok",
          value: 0.5,
          dataType: "NUMERIC",
          environment: "staging",
        },
      },
    ]);
    expect(server.requests[0]?.headers.authorization).toBe("Bearer token-123");
    expect(viaOtlp).toMatchObject({ transport: "otlp", traceIds: [otlpTraceId("run-9")], ok: true });
    expect(server.requests[1]?.path).toBe("/custom/ingestion");
    expect(batchOf(server.requests[1])[0]?.body).toMatchObject({
      id: `${otlpTraceId("run-9")}:score:user_feedback`,
      traceId: otlpTraceId("run-9"),
    });
  });
});

describe("score validation", () => {
  const invalid: [string, unknown, RegExp, string][] = [
    ["empty name", { name: " ", value: 1 }, /scores\[0\]\.name must be a non-empty string/, "scores[0].name"],
    [
      "NaN",
      { name: "n", value: Number.NaN },
      /finite number for a NUMERIC score, got NaN/,
      "scores[0].value",
    ],
    [
      "string as NUMERIC",
      { name: "n", value: "0.5", dataType: "NUMERIC" },
      /finite number for a NUMERIC score, got "0.5"/,
      "scores[0].value",
    ],
    [
      "1 as BOOLEAN",
      { name: "b", value: 1, dataType: "BOOLEAN" },
      /true or false for a BOOLEAN score, got 1/,
      "scores[0].value",
    ],
    [
      "number as CATEGORICAL",
      { name: "c", value: 3, dataType: "CATEGORICAL" },
      /non-empty string \(the category\)/,
      "scores[0].value",
    ],
    [
      "unknown dataType",
      { name: "d", value: 1, dataType: "PERCENT" },
      /dataType must be one of NUMERIC, CATEGORICAL, BOOLEAN, got "PERCENT"/,
      "scores[0].dataType",
    ],
    [
      "object value",
      { name: "o", value: { a: 1 } },
      /value must be a number, a string or a boolean, got a object/,
      "scores[0].value",
    ],
    [
      "array metadata",
      { name: "m", value: 1, metadata: [1] },
      /metadata must be a JSON object/,
      "scores[0].metadata",
    ],
    ["comment", { name: "m", value: 1, comment: 5 }, /comment must be a string/, "scores[0].comment"],
    [
      "bad kind",
      { name: "k", value: 1, observation: { kind: "span", runId: "run-1" } },
      /observation\.kind must be "run", "generation" or "tool"/,
      "scores[0].observation.kind",
    ],
    [
      "unknown tool",
      { name: "t", value: 1, observation: { kind: "tool", runId: "run-1", callId: "nope" } },
      /names no observation of the exported trace "run-1" \(looked for tool:run-1:nope\)/,
      "scores[0].observation",
    ],
    [
      "unknown root",
      { name: "r", value: 1, rootRunId: "other" },
      /"other" is not a root run of the exported records/,
      "scores[0].rootRunId",
    ],
    [
      "duplicate",
      [
        { name: "same", value: 1 },
        { name: "same", value: 2 },
      ],
      /two scores have the id "run-1:score:same"/,
      "scores",
    ],
    ["not an array", { name: "x", value: 1, asObject: true }, /scores must be an array/, "scores"],
  ];

  it.each(invalid)(
    "rejects %s with a validation error and sends nothing",
    async (_label, score, message, field) => {
      const records = await tinyRun();
      const server = await serve(acceptAll);
      const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });
      const scores = Array.isArray(score)
        ? score
        : (score as { asObject?: boolean }).asObject === true
          ? score
          : [score];
      const error = await rejection(client.exportRun(records, { scores: scores as LangfuseScore[] }));
      expect(error.code).toBe("validation");
      expect(error.message).toMatch(message);
      expect(error.details?.field).toBe(field);
      expect(server.requests).toHaveLength(0);
    },
  );

  it("needs rootRunId with several traces and in exportScores; checks a given attempt", async () => {
    const records = [...endedRun("a", "failed"), ...endedRun("b", "failed")];
    const client = LangfuseClient.direct("https://x.example", PUBLIC_KEY, SECRET_KEY, {
      transport: "ingestion",
    });
    expect(
      (await rejection(client.exportRun(records, { scores: [{ name: "s", value: 1 }] }))).message,
    ).toContain('scores[0].rootRunId is required: the records hold 2 root runs ("a", "b")');
    expect((await rejection(client.exportScores([{ name: "s", value: 1 }]))).message).toContain(
      "LangfuseClient.exportScores: scores[0].rootRunId is required",
    );
    const badAttempt = await rejection(
      client.exportScores([
        {
          rootRunId: "a",
          name: "s",
          value: 1,
          observation: { kind: "generation", runId: "a", callId: "c", attempt: 0 },
        },
      ]),
    );
    expect(badAttempt.details?.field).toBe("scores[0].observation.attempt");
    expect((await rejection(client.exportScores([]))).message).toContain("at least one score");
    expect(() =>
      LangfuseClient.direct("https://x.example", PUBLIC_KEY, SECRET_KEY, { scorePath: "x" }),
    ).toThrow(/scorePath must start with "\/"/);
    expect(
      (await rejection(client.exportRun(endedRun("a", "failed"), { successScore: { name: "" } }))).details
        ?.field,
    ).toBe("successScore.name");
  });

  it("types: a BOOLEAN score takes a boolean, a NUMERIC one a number", () => {
    const ok: LangfuseScore[] = [
      { name: "a", value: true },
      { name: "b", value: 0.3, dataType: "NUMERIC" },
      { name: "c", value: "x", dataType: "CATEGORICAL" },
    ];
    // @ts-expect-error BOOLEAN scores take true/false, not 1/0
    const wrong: LangfuseScore = { name: "d", value: 1, dataType: "BOOLEAN" };
    expect([ok.length, wrong.name]).toEqual([3, "d"]);
  });
});
