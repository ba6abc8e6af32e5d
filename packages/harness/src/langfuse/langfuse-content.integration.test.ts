import type { JsonObject } from "@tinyagents/inference";
import { afterEach, describe, expect, it } from "vitest";
import type { EventRecord } from "../contracts/agent-event.js";
import type { Middleware } from "../middleware/middleware.js";
import {
  runScenario,
  SECRET,
  SYSTEM_PROMPT,
  scenarioSink,
  WEATHER_RESULT,
} from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { EventRecorder } from "../testkit/event-recorder.js";
import { LangfuseClient } from "./langfuse-client.js";
import { acceptAll, closeServers, type Received, serve } from "./langfuse-server.fixture.js";
import { LANGFUSE_SDK_INFO } from "./sdk-info.js";

afterEach(closeServers);

const PUBLIC_KEY = "pk-lf-content-test";
const SECRET_KEY = "sk-lf-content-test";
const REDACTED_RESULT = WEATHER_RESULT.replace(SECRET, "[REDACTED]");

/** Request options a caller set, as the Langfuse generation's `modelParameters` should show them. */
const parameters: Middleware = {
  name: "parameters",
  beforeModel(_ctx, request) {
    request.temperature = 0.2;
    request.maxTokens = 512;
    request.toolChoice = "auto";
    request.parallelToolCalls = true;
  },
};

async function recordScenario(): Promise<EventRecord[]> {
  const clock = new DeterministicClock();
  const sink = scenarioSink(clock);
  const recorder = new EventRecorder();
  recorder.attach(sink);
  const outcome = await runScenario(sink, clock, { middleware: [parameters] });
  expect(outcome.error).toBeUndefined();
  return recorder.records;
}

type Body = Record<string, unknown>;

function ingestionBatch(request: Received | undefined): { type: string; body: Body }[] {
  return JSON.parse(request?.body ?? "{}").batch;
}

describe("Langfuse export with content capture", () => {
  it("ingestion: generation, trace and tool input/output, modelParameters, usage with cache fields, one generation per call", async () => {
    const records = await recordScenario();
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });
    const result = await client.exportRun(records, {
      captureContent: true,
      userId: "user-42",
      tags: ["prod"],
      metadata: { tenant: "acme" },
    });
    expect(result.ok).toBe(true);
    const request = server.requests[0];
    expect(request?.headers["x-langfuse-sdk-name"]).toBe("tinyagents");
    expect(request?.headers["x-langfuse-sdk-version"]).toBe(LANGFUSE_SDK_INFO.version);
    const envelope = JSON.parse(request?.body ?? "{}");
    expect(envelope.metadata).toEqual({
      sdk_name: "tinyagents",
      sdk_version: LANGFUSE_SDK_INFO.version,
      sdk_integration: "tinyagents",
      public_key: PUBLIC_KEY,
      batch_size: envelope.batch.length,
    });
    const batch = ingestionBatch(request);
    const trace = batch.find((e) => e.type === "trace-create")?.body;
    expect(trace).toMatchObject({
      id: "run-1",
      userId: "user-42",
      sessionId: "thread-7",
      tags: ["prod"],
      metadata: { tenant: "acme", rootRunId: "run-1" },
      input: [
        { role: "system", parts: [{ type: "text", content: SYSTEM_PROMPT }] },
        {
          role: "user",
          parts: [{ type: "text", content: "What is the weather in Paris? My key is [REDACTED]" }],
        },
      ],
      output: [
        {
          role: "assistant",
          parts: [{ type: "text", content: "Sunny and 21C in Paris." }],
          finish_reason: "stop",
        },
      ],
    });

    const generations = batch.filter((e) => e.type === "generation-create").map((e) => e.body);
    // Parent: 2 model calls (the first retried after a 429); child: 1. Never one per attempt.
    expect(generations.map((g) => g.name)).toEqual(["chat gpt-test", "chat gpt-child", "chat gpt-test"]);
    const [first, , last] = generations as [Body, Body, Body];
    expect(first).toMatchObject({
      model: "gpt-test",
      level: "DEFAULT",
      modelParameters: {
        temperature: 0.2,
        max_tokens: 512,
        tool_choice: "auto",
        parallel_tool_calls: true,
        tools: 2,
      },
      usageDetails: {
        input: 30,
        input_cache_read: 80,
        input_cache_creation: 10,
        output: 18,
        output_reasoning: 12,
        total: 150,
      },
      costDetails: { input: expect.any(Number), output: expect.any(Number), total: expect.any(Number) },
      metadata: expect.objectContaining({ attempts: 2, responseId: "chatcmpl-1" }),
    });
    expect((first.input as JsonObject[])[0]).toEqual({
      role: "system",
      parts: [{ type: "text", content: SYSTEM_PROMPT }],
    });
    expect(first.output).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "call-w", name: "get_weather", arguments: { city: "Paris" } },
          { type: "tool_call", id: "call-r", name: "researcher", arguments: { input: "Where is Paris?" } },
        ],
        finish_reason: "tool_calls",
      },
    ]);
    expect(last.usageDetails).toMatchObject({ input_cache_read: 0, input_cache_creation: 0 });
    // The failed attempt is an event inside the first generation, with the HTTP status.
    const failed = batch.find((e) => e.body.name === "model.failed")?.body;
    expect(failed).toMatchObject({
      level: "WARNING",
      parentObservationId: first.id,
      statusMessage: "Rate limited",
    });

    const tool = batch.find((e) => e.body.name === "execute_tool get_weather")?.body;
    expect(tool).toMatchObject({
      input: { city: "Paris" },
      output: REDACTED_RESULT,
      metadata: expect.objectContaining({ description: "Current weather for a city" }),
    });
    const researcher = batch.find((e) => e.body.name === "execute_tool researcher")?.body;
    const child = batch.find((e) => e.body.name === "invoke_agent" && e.body.id !== "run-1:run:run-1")?.body;
    expect(child?.parentObservationId).toBe(researcher?.id);
    expect(child?.output).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "Paris is in France." }], finish_reason: "stop" },
    ]);
    expect(batch.find((e) => e.body.name === "chat gpt-child")?.body.parentObservationId).toBe(child?.id);
    expect(request?.body).not.toContain(SECRET);
  });

  it("OTLP: the same fields as Langfuse attributes, int64 as decimal strings, execute_tool names", async () => {
    const records = await recordScenario();
    const server = await serve(() => ({ status: 200, body: "{}" }));
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY);
    await client.exportRun(records, { captureContent: true });
    const body = server.requests[0]?.body ?? "";
    expect(server.requests[0]?.headers["x-langfuse-sdk-version"]).toBe(LANGFUSE_SDK_INFO.version);
    expect(body).not.toContain(SECRET);
    const spans = JSON.parse(body).resourceSpans[0].scopeSpans[0].spans as {
      name: string;
      attributes: { key: string; value: Record<string, unknown> }[];
    }[];
    const attr = (name: string, key: string) =>
      spans.find((s) => s.name === name)?.attributes.find((a) => a.key === key)?.value;
    // OTLP/JSON int64: decimal strings.
    expect(attr("chat gpt-child", "gen_ai.usage.input_tokens")).toEqual({ intValue: "20" });
    for (const span of spans) {
      for (const { value } of span.attributes)
        if ("intValue" in value) expect(typeof value.intValue).toBe("string");
    }
    expect(spans.map((s) => s.name)).toContain("execute_tool get_weather");
    expect(spans.filter((s) => s.name === "chat gpt-test")).toHaveLength(2);
    const root = spans.find((s) => s.name === "invoke_agent")!;
    const rootAttr = (key: string) => root.attributes.find((a) => a.key === key)?.value.stringValue as string;
    expect(JSON.parse(rootAttr("langfuse.trace.input"))[0]).toEqual({
      role: "system",
      parts: [{ type: "text", content: SYSTEM_PROMPT }],
    });
    expect(JSON.parse(rootAttr("langfuse.trace.output"))[0].parts[0].content).toBe("Sunny and 21C in Paris.");
    expect(
      JSON.parse(String(attr("chat gpt-child", "langfuse.observation.output")?.stringValue))[0].role,
    ).toBe("assistant");
    expect(
      JSON.parse(String(attr("execute_tool get_weather", "langfuse.observation.output")?.stringValue)),
    ).toBe(REDACTED_RESULT);
    expect(attr("execute_tool get_weather", "gen_ai.tool.description")).toEqual({
      stringValue: "Current weather for a city",
    });
    expect(attr("invoke_agent", "gen_ai.provider.name")).toBeUndefined(); // set by OtelTracer only
  });

  it("keeps content out by default", async () => {
    const records = await recordScenario();
    const server = await serve(acceptAll);
    const client = LangfuseClient.direct(server.url, PUBLIC_KEY, SECRET_KEY, { transport: "ingestion" });
    await client.exportRun(records);
    const body = server.requests[0]?.body ?? "";
    expect(body).not.toContain(SYSTEM_PROMPT);
    expect(body).not.toContain("Sunny");
    expect(body).not.toContain(SECRET);
    const generation = ingestionBatch(server.requests[0]).find((e) => e.type === "generation-create")?.body;
    expect(generation?.modelParameters).toMatchObject({ temperature: 0.2 });
    expect(generation?.input).toBeUndefined();
  });

  it("the SDK version is the harness package's", async () => {
    const { readFile } = await import("node:fs/promises");
    const pkg = JSON.parse(await readFile(new URL("../../package.json", import.meta.url), "utf8"));
    expect(LANGFUSE_SDK_INFO.version).toBe(pkg.version);
  });
});
