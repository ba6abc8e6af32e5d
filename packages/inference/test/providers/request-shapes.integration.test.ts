/**
 * Request shapes, checked on what the adapters SEND to the replay server and on how they read
 * what comes back:
 * - a TTL per cache segment becomes Anthropic `cache_control.ttl` per breakpoint;
 * - current OpenAI models get `developer` and `max_completion_tokens`, compatible presets keep
 *   `system` and `max_tokens`;
 * - Mistral tool messages carry the tool's `name`;
 * - unary `invoke` reads a streamed body (a proxy that streams anyway) in the Anthropic and
 *   Ollama adapters, giving exactly the unary answer.
 */
import { describe, expect, it } from "vitest";
import {
  AnthropicModel,
  assistant,
  groq,
  type Message,
  type ModelRequest,
  mistral,
  OllamaModel,
  openai,
  ProviderError,
  system,
  toolCall,
  toolResult,
  user,
} from "../../src/index.js";
import { loadFixtures, replayOf } from "../replay/fixtures.js";
import { useReplayServer } from "../support/replay.js";
import { factsOf, fixtureDir } from "./parity.js";

const server = useReplayServer();

const anthropicDir = fixtureDir("anthropic");
const ollamaDir = fixtureDir("ollama");
const chatDir = (name: string) => fixtureDir(`openai-compatible/${name}`);
const anthropic = () =>
  new AnthropicModel({ apiKey: "sk-ant-x", baseUrl: server.url, model: "claude-sonnet-4-6" });
const ollama = () => new OllamaModel({ baseUrl: server.url, model: "qwen3:8b", env: {} });

describe("anthropic cache TTL per segment", () => {
  it("system 1h, history 5m: each breakpoint carries its own TTL on the wire", async () => {
    const text = loadFixtures(anthropicDir).find((f) => f.name === "text")!;
    server.enqueue(replayOf(anthropicDir, text.unary!));
    const call = toolCall("toolu_1", "search", { q: "x" });
    const messages: Message[] = [
      system("Stable instructions."),
      user("Find x."),
      assistant("Searching.", [call]),
      toolResult(call, "result"),
      user("Now summarise."),
    ];
    await anthropic().invoke({
      messages,
      maxTokens: 64,
      cacheSegments: [
        { id: "system", role: "system", cacheable: true, messageCount: 1, ttl: "1h" },
        { id: "history", role: "history", cacheable: true, messageCount: 3, ttl: "5m" },
        { id: "tail", role: "volatile", cacheable: false, messageCount: 1 },
      ],
    });
    const sent = server.lastRequest.json() as {
      system: Array<{ cache_control?: unknown }>;
      messages: Array<{ content: Array<{ type: string; cache_control?: unknown }> }>;
    };
    expect(sent.system[0]!.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
    const toolResultBlock = sent.messages[2]!.content.find((b) => b.type === "tool_result");
    expect(toolResultBlock?.cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(sent).match(/cache_control/g)).toHaveLength(2);
  });
});

describe("openai length field and system role per model family", () => {
  const text = loadFixtures(chatDir("openai")).find((f) => f.name === "text")!;
  const request: ModelRequest = { messages: [system("Be terse."), user("Hi")], maxTokens: 99 };

  it.each(["gpt-4.1-mini", "gpt-4o", "o4-mini", "gpt-5"])(
    "%s: developer + max_completion_tokens",
    async (id) => {
      server.enqueue(replayOf(chatDir("openai"), text.unary!));
      await openai({ model: id, apiKey: "sk-x", baseUrl: `${server.url}/v1` }).invoke(request);
      const sent = server.lastRequest.json() as Record<string, unknown>;
      expect(sent).toMatchObject({
        messages: [{ role: "developer" }, { role: "user" }],
        max_completion_tokens: 99,
      });
      expect(sent.max_tokens).toBeUndefined();
    },
  );

  it("gpt-3.5-turbo on OpenAI and every model on a compatible preset keep system + max_tokens", async () => {
    const groqText = loadFixtures(chatDir("groq")).find((f) => f.name === "text")!;
    server.enqueue(replayOf(chatDir("openai"), text.unary!), replayOf(chatDir("groq"), groqText.unary!));
    await openai({ model: "gpt-3.5-turbo", apiKey: "sk-x", baseUrl: `${server.url}/v1` }).invoke(request);
    // Groq serves OpenAI's open-weight model under an OpenAI-looking id: still the compatible shape.
    await groq({ model: "openai/gpt-oss-120b", apiKey: "gsk-x", baseUrl: `${server.url}/v1` }).invoke(
      request,
    );
    for (const sent of server.requests.map((r) => r.json() as Record<string, unknown>)) {
      expect(sent).toMatchObject({ messages: [{ role: "system" }, { role: "user" }], max_tokens: 99 });
      expect(sent.max_completion_tokens).toBeUndefined();
    }
  });
});

describe("mistral tool messages", () => {
  it("carry the tool's name (and the 9-character call id)", async () => {
    const tools = loadFixtures(chatDir("mistral")).find((f) => f.name === "text")!;
    server.enqueue(replayOf(chatDir("mistral"), tools.unary!));
    const call = toolCall("call_abc123def456", "get_weather", { city: "Paris" });
    await mistral({ apiKey: "m-x", baseUrl: `${server.url}/v1` }).invoke({
      messages: [user("Weather?"), assistant("", [call]), toolResult(call, "18C")],
    });
    const sent = server.lastRequest.json() as { messages: Array<Record<string, unknown>> };
    const tool = sent.messages.find((m) => m.role === "tool")!;
    expect(tool).toMatchObject({ role: "tool", name: "get_weather", content: "18C" });
    expect(tool.tool_call_id).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  it("other presets send no name on tool messages", async () => {
    const text = loadFixtures(chatDir("openai")).find((f) => f.name === "text")!;
    server.enqueue(replayOf(chatDir("openai"), text.unary!));
    const call = toolCall("call_1", "get_weather", {});
    await openai({ apiKey: "sk-x", baseUrl: `${server.url}/v1` }).invoke({
      messages: [user("Weather?"), assistant("", [call]), toolResult(call, "18C")],
    });
    const sent = server.lastRequest.json() as { messages: Array<Record<string, unknown>> };
    expect(sent.messages.find((m) => m.role === "tool")).not.toHaveProperty("name");
  });
});

describe("unary invoke reading a streamed body", () => {
  const anthropicAnswers = loadFixtures<{ error?: unknown }>(anthropicDir).filter(
    (f) => f.expect.error === undefined && f.unary !== undefined && f.stream !== undefined,
  );
  it.each(anthropicAnswers.map((f) => [f.name, f] as const))(
    "anthropic %s: same answer as the JSON body",
    async (_n, f) => {
      server.enqueue(
        replayOf(anthropicDir, f.unary!),
        replayOf(anthropicDir, f.stream!, { chunking: "awkward" }),
      );
      const fromJson = await anthropic().invoke({ messages: [user("Hello")], maxTokens: 64 });
      const fromStream = await anthropic().invoke({ messages: [user("Hello")], maxTokens: 64 });
      expect((server.lastRequest.json() as { stream?: boolean }).stream).toBeUndefined();
      expect(factsOf(fromStream)).toEqual(factsOf(fromJson));
    },
  );

  it("anthropic: an error event in the streamed body throws the classified error", async () => {
    const f = loadFixtures(anthropicDir).find((x) => x.name === "stream-error")!;
    server.enqueue(replayOf(anthropicDir, f.stream!));
    const thrown = await anthropic()
      .invoke({ messages: [user("Hello")], maxTokens: 64 })
      .catch((e: unknown) => e);
    expect(ProviderError.isProviderError(thrown)).toBe(true);
    expect(thrown).toMatchObject({ kind: "upstream_unhealthy", retryable: true, provider: "anthropic" });
  });

  const ollamaAnswers = loadFixtures<{ error?: unknown }>(ollamaDir).filter(
    (f) => f.expect.error === undefined && f.unary !== undefined && f.stream !== undefined,
  );
  it.each(ollamaAnswers.map((f) => [f.name, f] as const))(
    "ollama %s: same answer as the JSON body",
    async (_n, f) => {
      server.enqueue(replayOf(ollamaDir, f.unary!), replayOf(ollamaDir, f.stream!, { chunking: "awkward" }));
      const fromJson = await ollama().invoke({ messages: [user("Hello")] });
      const fromStream = await ollama().invoke({ messages: [user("Hello")] });
      expect((server.lastRequest.json() as { stream?: boolean }).stream).toBe(false);
      expect(factsOf(fromStream)).toEqual(factsOf(fromJson));
    },
  );
});
