import type { FetchLike } from "../../http/fetch-types.js";
import { text } from "../../message/constructors.js";
import type { ModelCallOptions } from "../../model/chat-model.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ModelResponse } from "../../model/model-response.js";
import { StreamAccumulator } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import type { ToolSchema } from "../../tool/tool-schema.js";
import { OpenAiChatModel } from "./openai-chat-model.js";
import { COMPATIBLE_QUIRKS, type OpenAiQuirks } from "./quirks.js";

/** The outcome of one capability check. */
export interface ProbeCheck {
  ok: boolean;
  /** Why it failed (the error message, or what was missing). */
  error?: string;
  /** What was observed (for example "3 tool-call fragments"). */
  detail?: string;
}

/** What an OpenAI-compatible endpoint can do, check by check. */
export interface ProbeReport {
  /** The endpoint, credential-free (user info and query values masked). */
  baseUrl: string;
  model: string;
  /** A plain unary answer. */
  text: ProbeCheck;
  /** A streamed answer with text deltas. */
  streaming: ProbeCheck;
  /** A unary native tool call. */
  tools: ProbeCheck;
  /** A tool call delivered through the stream (fragmented or whole). */
  streamingToolChunks: ProbeCheck;
  /** A strict `json_schema` answer that parses and has the required keys. */
  structuredOutput: ProbeCheck;
}

/** Options for {@link probeOpenAiCompatible}. */
export interface ProbeOptions {
  apiKey?: string | undefined;
  fetch?: FetchLike | undefined;
  signal?: AbortSignal | undefined;
  quirks?: Partial<OpenAiQuirks> | undefined;
  /** Per-check timeout (default 60 s). */
  timeoutMs?: number | undefined;
}

const WEATHER: ToolSchema = {
  name: "get_weather",
  description: "Get the current weather for a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string", description: "City name" } },
    required: ["city"],
  },
};

/**
 * Find out which capabilities an OpenAI-compatible endpoint really has, by making five small
 * calls (each failure is reported, never thrown): a unary text answer, a streamed answer, a
 * forced tool call (unary), a forced tool call streamed, and a strict JSON-schema answer.
 * Costs a handful of tokens on hosted APIs.
 */
export async function probeOpenAiCompatible(
  baseUrl: string,
  model: string,
  options: ProbeOptions = {},
): Promise<ProbeReport> {
  const chat = new OpenAiChatModel({
    model,
    baseUrl,
    apiKey: options.apiKey,
    provider: "probe",
    fetch: options.fetch,
    baseQuirks: COMPATIBLE_QUIRKS,
    quirks: options.quirks,
  });
  const call: ModelCallOptions = options.signal === undefined ? {} : { signal: options.signal };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const ask = (content: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
    messages: [{ role: "user", content: [{ type: "text", text: content }] }],
    maxTokens: 200,
    timeoutMs,
    ...extra,
  });
  const toolRequest = ask("What is the weather in Paris? Use the tool.", {
    tools: [WEATHER],
    toolChoice: "required",
  });

  const textCheck = await check(async () => {
    const response = await chat.invoke(ask("Reply with the single word OK."), call);
    const answer = text(response.message).trim();
    return answer === ""
      ? { ok: false, error: "the answer was empty" }
      : { ok: true, detail: answer.slice(0, 80) };
  });
  const streamingCheck = await check(async () => {
    const items = await drain(chat.stream(ask("Count from 1 to 5, separated by spaces."), call));
    const deltas = items.filter((item) => item.type === "text_delta").length;
    return deltas === 0
      ? { ok: false, error: "the stream carried no text deltas" }
      : { ok: true, detail: `${deltas} text deltas` };
  });
  const toolsCheck = await check(async () => describeToolCall(await chat.invoke(toolRequest, call)));
  const streamingToolsCheck = await check(async () => {
    const items = await drain(chat.stream(toolRequest, call));
    const fragments = items.filter((item) => item.type === "tool_call_delta").length;
    if (fragments === 0) return { ok: false, error: "the stream carried no tool-call items" };
    const result = describeToolCall(collect(items));
    return result.ok ? { ok: true, detail: `${fragments} tool-call items; ${result.detail ?? ""}` } : result;
  });
  const structuredCheck = await check(async () => {
    const response = await chat.invoke(
      ask("Give the capital of France and its population in millions.", {
        responseFormat: {
          type: "json_schema",
          name: "capital",
          strict: true,
          schema: {
            type: "object",
            properties: { city: { type: "string" }, population_millions: { type: "number" } },
            required: ["city", "population_millions"],
          },
        },
      }),
      call,
    );
    const answer = text(response.message);
    try {
      const parsed = JSON.parse(answer) as Record<string, unknown>;
      const missing = ["city", "population_millions"].filter((key) => !(key in parsed));
      return missing.length === 0
        ? { ok: true, detail: answer.slice(0, 80) }
        : { ok: false, error: `the JSON lacks ${missing.join(", ")}` };
    } catch {
      return { ok: false, error: `the answer is not JSON: ${answer.slice(0, 80)}` };
    }
  });
  return {
    // Credential-free: a `?key=` in the base URL must not reach a printed report.
    baseUrl: chat.endpoint,
    model,
    text: textCheck,
    streaming: streamingCheck,
    tools: toolsCheck,
    streamingToolChunks: streamingToolsCheck,
    structuredOutput: structuredCheck,
  };
}

function describeToolCall(response: ModelResponse): ProbeCheck {
  const call = response.message.toolCalls[0];
  if (call === undefined) return { ok: false, error: "no tool call came back" };
  if (call.name !== WEATHER.name) return { ok: false, error: `the tool call named "${call.name}"` };
  if (call.invalid !== undefined) return { ok: false, error: `invalid arguments: ${call.invalid.error}` };
  return { ok: true, detail: `${call.name}(${JSON.stringify(call.arguments)})` };
}

async function check(run: () => Promise<ProbeCheck>): Promise<ProbeCheck> {
  try {
    return await run();
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

async function drain(items: AsyncIterable<ModelStreamItem>): Promise<ModelStreamItem[]> {
  const out: ModelStreamItem[] = [];
  for await (const item of items) out.push(item);
  return out;
}

function collect(items: ModelStreamItem[]): ModelResponse {
  const accumulator = new StreamAccumulator({ provider: "probe" });
  for (const item of items) accumulator.push(item);
  return accumulator.finish();
}
