import { type ChatModel, ProviderError, system, usage, user } from "@tinyagents/inference";
import { EventSink } from "../events/event-sink.js";
import type { Middleware } from "../middleware/middleware.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { SubAgent } from "../runtime/sub-agent.js";
import { SubAgentTool } from "../runtime/sub-agent-tool.js";
import type { DeterministicClock } from "../testkit/deterministic-clock.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { ScriptedModel, type ScriptStep } from "../testkit/scripted-model.js";
import { tool } from "../tool/define-tool.js";
import type { ToolExecutionContext } from "../tool/tool.js";
import { traceDetailsMiddleware } from "./trace-details-middleware.js";

// One realistic run for the exporter tests: a parent agent with a system prompt calls
// `get_weather` (whose result holds a secret) and a `researcher` sub-agent, after a provider 429
// that is retried; usage has cache reads and writes and reasoning. Both harnesses carry
// `traceDetailsMiddleware` with content capture, plus whatever `middleware` the test adds.

/** An API key shape the default redaction rules scrub (in the prompt and in a tool result). */
export const SECRET = "sk-live4f9a8b7c6d5e4f3a2b1c0d9e8f";

/** The system prompt of the parent run. */
export const SYSTEM_PROMPT = "You are a weather assistant. Be brief.";

/** What `get_weather` returns (with the secret). */
export const WEATHER_RESULT = `Sunny, 21C (station key ${SECRET})`;

/** A model with an endpoint (`server.address` / `server.port`) and a response id per answer. */
export function endpointModel(inner: ScriptedModel, endpoint: string): ChatModel {
  let answer = 0;
  return {
    provider: "openai",
    modelId: inner.modelId,
    endpoint,
    invoke: async (request, options) => {
      const response = await inner.invoke(request, options);
      answer++;
      return { ...response, raw: { id: `chatcmpl-${answer}` } };
    },
  };
}

export interface ScenarioOptions {
  /** Extra middleware for both harnesses (registered before `traceDetailsMiddleware`). */
  middleware?: readonly Middleware[];
  /** Runs inside `get_weather` (e.g. to create an instrumented span). */
  insideTool?: (ctx: ToolExecutionContext<undefined, undefined>) => void | Promise<void>;
  /** Runs inside the parent's model calls (e.g. an instrumented HTTP span). */
  insideModel?: () => void;
  captureContent?: boolean;
  /**
   * The trace details middleware of both harnesses (default: `traceDetailsMiddleware` with
   * `captureContent`); e.g. the earlier versions' one, to compare journals of both kinds.
   */
  traceDetails?: Middleware;
}

/** Run the scenario on a fresh sink; returns the sink's records via `subscribe` before calling. */
export async function runScenario(sink: EventSink, clock: DeterministicClock, options: ScenarioOptions = {}) {
  const ids = new DeterministicIds();
  const details =
    options.traceDetails ?? traceDetailsMiddleware({ captureContent: options.captureContent ?? true });
  const childModel = new ScriptedModel(["Paris is in France."], {
    modelId: "gpt-child",
    usage: usage({ inputTokens: 20, outputTokens: 6 }),
  });
  const child = new AgentHarness<undefined, undefined>({ clock, ids }).registerModel(
    "m",
    endpointModel(childModel, "https://api.openai.com/v1"),
  );
  for (const m of options.middleware ?? []) child.use(m);
  child.use(details);
  const insideModel = options.insideModel;
  const step =
    (reply: ScriptStep): ScriptStep =>
    async (request, call) => {
      insideModel?.();
      await clock.sleep(100);
      return typeof reply === "function" ? reply(request, call) : reply;
    };
  const parentModel = new ScriptedModel(
    [
      new ProviderError({ provider: "openai", message: "Rate limited", kind: "rate_limited", status: 429 }),
      step({
        toolCalls: [
          { name: "get_weather", id: "call-w", arguments: { city: "Paris" } },
          { name: "researcher", id: "call-r", arguments: { input: "Where is Paris?" } },
        ],
        usage: usage({
          inputTokens: 120,
          outputTokens: 30,
          cacheReadTokens: 80,
          cacheWriteTokens: 10,
          reasoningTokens: 12,
        }),
      }),
      step({
        message: {
          role: "assistant",
          content: [{ type: "text", text: "Sunny and 21C in Paris." }],
          toolCalls: [],
        },
        finishReason: "stop",
        usage: usage({ inputTokens: 200, outputTokens: 9, cacheReadTokens: 0 }),
      }),
    ],
    { modelId: "gpt-test" },
  );
  const insideTool = options.insideTool;
  const parent = new AgentHarness<undefined, undefined>({ clock, ids })
    .registerModel("main", endpointModel(parentModel, "https://llm.example.com:8443/v1"), {
      pricing: {
        inputPerMillion: 1,
        outputPerMillion: 2,
        cacheReadPerMillion: 0.5,
        cacheWritePerMillion: 1.25,
      },
    })
    .registerTool(
      tool({
        name: "get_weather",
        description: "Current weather for a city",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        execute: async (_args, ctx) => {
          await insideTool?.(ctx);
          await clock.sleep(20);
          return WEATHER_RESULT;
        },
      }),
    )
    .registerTool(
      new SubAgentTool(new SubAgent({ name: "researcher", description: "Looks things up", harness: child })),
    )
    .withPolicy({ retry: { maxRetries: 2, initialBackoffMs: 50 } });
  for (const m of options.middleware ?? []) parent.use(m);
  parent.use(details);
  return lowerLayer(parent).invokeCollectingPartial(
    undefined,
    undefined,
    { runId: "run-1", threadId: "thread-7" },
    [system(SYSTEM_PROMPT), user(`What is the weather in Paris? My key is ${SECRET}`)],
    { events: sink },
  );
}

/** A sink on the scenario clock. */
export function scenarioSink(clock: DeterministicClock): EventSink {
  return new EventSink("run-1", { now: () => clock.now() });
}
