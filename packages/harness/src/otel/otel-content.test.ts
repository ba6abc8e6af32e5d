import { context, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attachObservability } from "../observability/attach-observability.js";
import {
  runScenario,
  SECRET,
  SYSTEM_PROMPT,
  scenarioSink,
  WEATHER_RESULT,
} from "../observability/trace-scenario.fixture.js";
import { DeterministicClock } from "../testkit/deterministic-clock.js";
import { GEN_AI } from "./gen-ai-conventions.js";
import { OtelTracer } from "./otel-tracer.js";

let exporter: InMemorySpanExporter;
let provider: BasicTracerProvider;
let contextManager: AsyncLocalStorageContextManager;

beforeEach(() => {
  contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  exporter = new InMemorySpanExporter();
  provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
});

afterEach(async () => {
  await provider.shutdown();
  context.disable();
  contextManager.disable();
});

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();

function one(name: string, index = 0): ReadableSpan {
  const span = spans().filter((s) => s.name === name)[index];
  if (span === undefined) throw new Error(`no span "${name}" #${index}; have ${spans().map((s) => s.name)}`);
  return span;
}

function parentName(span: ReadableSpan): string | undefined {
  return spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId)?.name;
}

async function exportScenario(options: { captureContent?: boolean } = {}) {
  const clock = new DeterministicClock();
  const sink = scenarioSink(clock);
  const otel = new OtelTracer(provider.getTracer("tinyagents"), {
    agentName: (run) => (run.depth === 0 ? "weather" : "researcher"),
    agentDescription: "Answers weather questions",
    captureContent: options.captureContent ?? true,
  });
  otel.attach(sink);
  // The tracer of instrumented libraries: only the active context links their spans to ours.
  const libraries = provider.getTracer("instrumented-libraries");
  const outcome = await runScenario(sink, clock, {
    middleware: [otel.middleware()],
    // What an auto-instrumented database driver and HTTP client do: a span under the active context.
    insideTool: async () => {
      await libraries.startActiveSpan("db.query weather", async (span) => {
        await Promise.resolve();
        span.end();
      });
    },
    insideModel: () => libraries.startSpan("POST /v1/chat/completions").end(),
  });
  expect(outcome.error).toBeUndefined();
  expect(otel.openSpans).toBe(0);
  return otel;
}

describe("OtelTracer with traceDetailsMiddleware", () => {
  it("records prompt, answer, tool definitions, tool arguments and results with content capture", async () => {
    await exportScenario();
    const chat = one("chat gpt-test", 1);
    const attributes = chat.attributes;
    expect(JSON.parse(String(attributes[GEN_AI.systemInstructions]))).toEqual([
      { type: "text", content: SYSTEM_PROMPT },
    ]);
    const input = JSON.parse(String(attributes[GEN_AI.inputMessages]));
    expect(input).toEqual([
      {
        role: "user",
        parts: [{ type: "text", content: "What is the weather in Paris? My key is [REDACTED]" }],
      },
    ]);
    expect(JSON.parse(String(attributes[GEN_AI.toolDefinitions]))).toEqual([
      {
        type: "function",
        name: "get_weather",
        description: "Current weather for a city",
        parameters: expect.objectContaining({ type: "object" }),
      },
      expect.objectContaining({ type: "function", name: "researcher", description: "Looks things up" }),
    ]);
    expect(JSON.parse(String(attributes[GEN_AI.outputMessages]))).toEqual([
      {
        role: "assistant",
        parts: [
          { type: "tool_call", id: "call-w", name: "get_weather", arguments: { city: "Paris" } },
          { type: "tool_call", id: "call-r", name: "researcher", arguments: { input: "Where is Paris?" } },
        ],
        finish_reason: "tool_calls",
      },
    ]);
    // The second call sees the tool results in its input messages.
    const second = JSON.parse(String(one("chat gpt-test", 2).attributes[GEN_AI.inputMessages]));
    expect(second.at(-2)).toEqual({
      role: "tool",
      parts: [
        { type: "tool_call_response", id: "call-w", response: WEATHER_RESULT.replace(SECRET, "[REDACTED]") },
      ],
    });
    const tool = one("execute_tool get_weather");
    expect(tool.attributes).toMatchObject({
      [GEN_AI.toolName]: "get_weather",
      [GEN_AI.toolDescription]: "Current weather for a city",
      [GEN_AI.toolCallArguments]: JSON.stringify({ city: "Paris" }),
      [GEN_AI.toolCallResult]: WEATHER_RESULT.replace(SECRET, "[REDACTED]"),
    });
  });

  it("sets response id, finish reasons, server address/port, request model, usage with cache fields, error.type with the HTTP status", async () => {
    await exportScenario({ captureContent: false });
    const [failed, first, second] = spans().filter((s) => s.name === "chat gpt-test");
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes).toMatchObject({
      [GEN_AI.errorType]: "429",
      [GEN_AI.httpResponseStatusCode]: 429,
      [GEN_AI.serverAddress]: "llm.example.com",
      [GEN_AI.serverPort]: 8443,
    });
    expect(first?.attributes).toMatchObject({
      [GEN_AI.operationName]: "chat",
      [GEN_AI.providerName]: "openai",
      [GEN_AI.requestModel]: "gpt-test",
      [GEN_AI.responseModel]: "gpt-test",
      [GEN_AI.responseId]: "chatcmpl-1",
      [GEN_AI.responseFinishReasons]: ["tool_calls"],
      [GEN_AI.serverAddress]: "llm.example.com",
      [GEN_AI.serverPort]: 8443,
      [GEN_AI.usageInputTokens]: 120,
      [GEN_AI.usageOutputTokens]: 30,
      [GEN_AI.usageCacheReadInputTokens]: 80,
      [GEN_AI.usageCacheCreationInputTokens]: 10,
      [GEN_AI.usageReasoningOutputTokens]: 12,
    });
    // A cache miss is reported as 0, not left out.
    expect(second?.attributes[GEN_AI.usageCacheReadInputTokens]).toBe(0);
    expect(second?.attributes[GEN_AI.responseId]).toBe("chatcmpl-2");
    const child = one("chat gpt-child");
    expect(child.attributes).toMatchObject({
      [GEN_AI.serverAddress]: "api.openai.com",
      [GEN_AI.serverPort]: 443,
    });
    const agent = one("invoke_agent weather");
    expect(agent.attributes).toMatchObject({
      [GEN_AI.requestModel]: "gpt-test",
      [GEN_AI.providerName]: "openai",
      [GEN_AI.conversationId]: "thread-7",
      [GEN_AI.agentName]: "weather",
      [GEN_AI.agentDescription]: "Answers weather questions",
    });
    expect(one("execute_tool get_weather").attributes[GEN_AI.toolDescription]).toBe(
      "Current weather for a city",
    );
    // Content stays out without capture.
    const all = JSON.stringify(spans().map((s) => s.attributes));
    expect(all).not.toContain("Paris");
    expect(all).not.toContain(SYSTEM_PROMPT);
  });

  it("nests a tool's own spans under execute_tool, provider HTTP spans under the attempt's chat span, the sub-agent under its tool", async () => {
    await exportScenario();
    expect(parentName(one("db.query weather"))).toBe("execute_tool get_weather");
    const http = spans().filter((s) => s.name === "POST /v1/chat/completions");
    expect(http).toHaveLength(2);
    for (const [index, span] of http.entries()) {
      // Attempt 1 failed (429) before any request span; attempts 2 and 3 made one each.
      const chat = one("chat gpt-test", index + 1);
      expect(span.parentSpanContext?.spanId).toBe(chat.spanContext().spanId);
    }
    expect(parentName(one("invoke_agent researcher"))).toBe("execute_tool researcher");
    expect(parentName(one("chat gpt-child"))).toBe("invoke_agent researcher");
    expect(new Set(spans().map((s) => s.spanContext().traceId)).size).toBe(1);
  });

  it("scrubs a secret in the prompt and in a tool result from every span, also when fed by attachObservability", async () => {
    await exportScenario();
    expect(JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events]))).not.toContain(SECRET);
    exporter.reset();
    const clock = new DeterministicClock();
    const sink = scenarioSink(clock);
    const otel = new OtelTracer(provider.getTracer("t"), { captureContent: true, redact: false });
    const obs = attachObservability(sink, { sinks: [otel] });
    await runScenario(sink, clock, { middleware: [otel.middleware()] });
    await obs.close();
    const text = JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events]));
    expect(text).toContain("[REDACTED]");
    expect(text).not.toContain(SECRET);
  });

  it("names every GenAI attribute as @opentelemetry/semantic-conventions does", () => {
    const constants = new Set(Object.values(semconv).filter((v) => typeof v === "string"));
    const missing = Object.values(GEN_AI).filter((key) => !constants.has(key));
    expect(missing).toEqual([]);
  });
});
