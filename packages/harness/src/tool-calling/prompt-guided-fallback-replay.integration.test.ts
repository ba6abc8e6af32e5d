/**
 * The automatic fallback against real HTTP traffic: an Ollama `/v1` endpoint (served by the
 * inference package's replay server on loopback) answers 400 "does not support tools"; the
 * wrapper retries prompt-guided, parses the calls out of the streamed text, and sends every later
 * call without `tools`.
 */
import {
  collectStream,
  compatible,
  type ModelRequest,
  type ToolSchema,
  text,
  user,
} from "@tinyagents/inference";
import { describe, expect, it } from "vitest";
import { useReplayServer } from "../../../inference/test/support/replay.js";
import { DeterministicIds } from "../testkit/deterministic-ids.js";
import { withPromptToolsFallback } from "./prompt-guided-tools-model.js";

const WEATHER: ToolSchema = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const request: ModelRequest = { messages: [user("Weather in Paris?")], tools: [WEATHER] };

const REFUSAL = {
  status: 400,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({
    error: {
      message: "registry.ollama.ai/library/gemma3:4b does not support tools",
      type: "api_error",
      param: null,
      code: null,
    },
  }),
};

function sse(pieces: string[], finish = "stop"): string {
  const chunk = (delta: object, reason: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-7", object: "chat.completion.chunk", model: "gemma3:4b", choices: [{ index: 0, delta, finish_reason: reason }] })}\n\n`;
  return (
    chunk({ role: "assistant", content: "" }) +
    pieces.map((content) => chunk({ content })).join("") +
    chunk({}, finish) +
    `data: ${JSON.stringify({ id: "chatcmpl-7", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 } })}\n\n` +
    "data: [DONE]\n\n"
  );
}

const CALL_PIECES = [
  "I'll look it up.\n<tool",
  '_call>\n{"name": "get_',
  'weather", "arguments": {"city": "Paris"}}\n</tool_',
  "call>",
];

const server = useReplayServer();

function model() {
  const inner = compatible(`${server.url}/v1`, "gemma3:4b", { provider: "ollama", env: {} });
  return withPromptToolsFallback(inner, { ids: new DeterministicIds() });
}

describe("prompt-guided fallback over HTTP", () => {
  it("retries a 400 'does not support tools' prompt-guided, then stays prompt-guided", async () => {
    server.enqueue(REFUSAL, {
      headers: { "content-type": "text/event-stream" },
      body: sse(CALL_PIECES),
      chunking: "awkward",
    });
    const wrapped = model();
    const items = [];
    for await (const item of wrapped.stream(request)) items.push(item);
    for (const item of items) if (item.type === "text_delta") expect(item.text).not.toMatch(/tool_call|[<{]/);
    const response = await collectStream(items);
    expect(response.message.toolCalls).toEqual([
      { id: "ptc-1", name: "get_weather", arguments: { city: "Paris" } },
    ]);
    expect(text(response.message)).toBe("I'll look it up.");
    expect(response.finishReason).toBe("tool_calls");
    expect(response.usage?.inputTokens).toBe(120);

    const [native, guided] = server.requests.map((r) => r.json() as Record<string, unknown>);
    expect(native?.tools).toEqual([{ type: "function", function: { ...WEATHER } }]);
    expect(guided?.tools).toBeUndefined();
    expect(guided?.tool_choice).toBeUndefined();
    const messages = guided?.messages as Array<{ role: string; content: string }>;
    expect(messages[0]?.role).toBe("system");
    expect(messages[0]?.content).toContain("<tool_call>");
    expect(messages[0]?.content).toContain("- get_weather: Current weather for a city.");
    expect(messages[1]).toEqual({ role: "user", content: "Weather in Paris?" });
    expect(wrapped.promptGuided).toBe(true);

    server.reset();
    server.enqueue({ headers: { "content-type": "application/json" }, body: unary("Paris: 18C, sunny.") });
    const second = await wrapped.invoke(request);
    expect(text(second.message)).toBe("Paris: 18C, sunny.");
    expect(server.requests).toHaveLength(1);
    expect((server.lastRequest.json() as Record<string, unknown>).tools).toBeUndefined();
  });

  it("does not fall back on other 400s", async () => {
    server.enqueue({
      status: 400,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        error: { message: "invalid message role: wizard", type: "invalid_request_error" },
      }),
    });
    const wrapped = model();
    await expect(wrapped.invoke(request)).rejects.toMatchObject({ status: 400, code: "provider" });
    expect(server.requests).toHaveLength(1);
    expect(wrapped.promptGuided).toBe(false);
  });
});

function unary(content: string): string {
  return JSON.stringify({
    id: "chatcmpl-8",
    object: "chat.completion",
    model: "gemma3:4b",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 150, completion_tokens: 8, total_tokens: 158 },
  });
}
