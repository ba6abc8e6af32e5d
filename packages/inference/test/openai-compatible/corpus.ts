/**
 * Shared helpers for the OpenAI-compatible fixture corpus tests: loading fixtures, building the
 * model a fixture's provider uses against the replay server, the request each scenario sends,
 * and a comparable summary of a response.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ModelRequest } from "../../src/model/model-request.js";
import type { ModelResponse } from "../../src/model/model-response.js";
import type { OpenAiChatModel } from "../../src/providers/openai/openai-chat-model.js";
import { fromPreset, type PresetName } from "../../src/providers/openai/presets.js";
import type { ToolCall } from "../../src/tool/tool-call.js";
import type { Usage } from "../../src/usage/usage.js";
import { type Fixture, loadFixtures } from "../replay/fixtures.js";

/** The `expect` block of a corpus fixture. */
export interface CorpusExpect {
  /** Answer text; `null` = no text block at all. */
  text?: string | null;
  /** The text parsed as JSON (structured answers). */
  json?: unknown;
  reasoning?: string;
  toolCalls?: Array<Pick<ToolCall, "id" | "name" | "arguments"> & { invalid?: boolean }>;
  finishReason?: string;
  usage?: Omit<Usage, "raw">;
  id?: string;
  /** Text streamed before an in-stream error. */
  partialText?: string;
  error?: {
    status?: number;
    providerCode?: string;
    kind?: string;
    code?: string;
    retryable?: boolean;
    retryAfterMs?: number;
    messageIncludes?: string;
  };
  /** Set to false where the official SDK is known to disagree (documented quirk it does not handle). */
  sdk?: boolean;
  /** Why the SDK disagrees. */
  sdkNote?: string;
  /** A subset of the request body the adapter must send (checked with toMatchObject). */
  sent?: Record<string, unknown>;
  /** Synthetic tool call ids are generated (the server sent none). */
  generatedIds?: boolean;
}

export const CORPUS_DIR = fileURLToPath(new URL("../fixtures/openai-compatible/", import.meta.url));
export const PROVIDERS = [
  "openai",
  "deepseek",
  "groq",
  "mistral",
  "xai",
  "ollama",
  "llamacpp",
  "openrouter",
  "vllm",
];
export const TEST_KEY = "sk-test-FIXTUREKEY0123456789abcdef";

/** Every fixture of the corpus, as `[label, fixture]` pairs for `it.each`. */
export function corpus(): Array<[string, Fixture<CorpusExpect>]> {
  const out: Array<[string, Fixture<CorpusExpect>]> = [];
  for (const provider of PROVIDERS) {
    if (!existsSync(`${CORPUS_DIR}${provider}`)) continue;
    for (const fixture of loadFixtures<CorpusExpect>(`${CORPUS_DIR}${provider}`)) {
      out.push([`${provider}/${fixture.name}`, fixture]);
    }
  }
  return out;
}

/** The model a fixture's provider preset builds, pointed at the replay server. */
export function modelFor(fixture: Fixture<CorpusExpect>, serverUrl: string): OpenAiChatModel {
  let n = 0;
  return fromPreset(fixture.provider as PresetName, {
    model: fixture.model,
    apiKey: TEST_KEY,
    baseUrl: `${serverUrl}/v1`,
    env: {},
    generateToolCallId: () => `generated_${n++}`,
  });
}

const WEATHER = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, unit: { type: "string", enum: ["celsius", "fahrenheit"] } },
    required: ["city"],
  },
};
const TIME = {
  name: "get_time",
  description: "Current time in a time zone",
  parameters: { type: "object", properties: { timezone: { type: "string" } }, required: ["timezone"] },
};

/** The request a scenario sends (by fixture name prefix). */
export function requestFor(fixture: Fixture<CorpusExpect>): ModelRequest {
  const messages: ModelRequest["messages"] = [
    { role: "system", content: [{ type: "text", text: "You are terse." }] },
    { role: "user", content: [{ type: "text", text: "What's the weather in Paris and the time in Tokyo?" }] },
  ];
  if (fixture.name.startsWith("tools")) return { messages, tools: [WEATHER, TIME], toolChoice: "auto" };
  if (fixture.name.startsWith("structured")) {
    return {
      messages,
      responseFormat: {
        type: "json_schema",
        name: "city_facts",
        schema: {
          type: "object",
          properties: {
            city: { type: "string" },
            country: { type: "string" },
            population_millions: { type: "number" },
          },
          required: ["city", "country", "population_millions"],
        },
      },
    };
  }
  return { messages, maxTokens: 256 };
}

/** What stream and unary parsing must agree on. */
export interface Summary {
  text: string | null;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: unknown; invalid: boolean }>;
  usage: Omit<Usage, "raw"> | undefined;
  finishReason: string | undefined;
}

/** Summarize a response for comparison (`ids: false` blanks generated ids). */
export function summarize(response: ModelResponse, ids = true): Summary {
  let text: string | null = null;
  let reasoning = "";
  for (const block of response.message.content) {
    if (block.type === "text") text = (text ?? "") + block.text;
    if (block.type === "reasoning") reasoning += block.text;
  }
  let usage: Omit<Usage, "raw"> | undefined;
  if (response.usage !== undefined) {
    const { raw: _raw, ...rest } = response.usage;
    usage = rest;
  }
  return {
    text,
    reasoning,
    toolCalls: response.message.toolCalls.map((call) => ({
      id: ids ? call.id : "",
      name: call.name,
      arguments: call.arguments,
      invalid: call.invalid !== undefined,
    })),
    usage,
    finishReason: response.finishReason,
  };
}
