import { describe, expect, it } from "vitest";
import { useReplayServer } from "../../../test/support/replay.js";
import { ProviderError } from "../../errors/provider-error.js";
import { drain } from "../../http/test-streams.fixture.js";
import { text, user } from "../../message/constructors.js";
import type { ModelRequest } from "../../model/model-request.js";
import { StreamAccumulator } from "../../model/stream-accumulator.js";
import type { ModelStreamItem } from "../../model/stream-item.js";
import { OpenAiChatModel } from "./openai-chat-model.js";

const KEY = "sk-unit-0123456789abcdefghij";
const request: ModelRequest = { messages: [user("hi")] };
const SSE = { "content-type": "text/event-stream" };

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ id: "c1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } })}\n\n`;
const GOOD =
  chunk({ role: "assistant", content: "" }) +
  chunk({ content: "Hel" }) +
  chunk({ content: "lo" }) +
  chunk({}, "stop") +
  usageChunk +
  "data: [DONE]\n\n";

const server = useReplayServer({ resetBeforeEach: false });

function model(extra: Partial<ConstructorParameters<typeof OpenAiChatModel>[0]> = {}): OpenAiChatModel {
  return new OpenAiChatModel({ model: "gpt-4.1-mini", baseUrl: `${server.url}/v1/`, apiKey: KEY, ...extra });
}

describe("OpenAiChatModel", () => {
  it("streams items in order: start, deltas, usage, finish", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD, chunking: "awkward" });
    const items = await drain(model().stream(request));
    expect(items).toEqual([
      { type: "start", id: "c1", model: "m" },
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo" },
      {
        type: "usage",
        usage: {
          inputTokens: 3,
          outputTokens: 2,
          totalTokens: 5,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
          reasoningTokens: 0,
          raw: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
        },
      },
      expect.objectContaining({ type: "finish", finishReason: "stop" }),
    ]);
    expect(server.lastRequest.path).toBe("/v1/chat/completions");
    expect(server.lastRequest.json()).toEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("invoke reads an SSE reply to a unary request", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD });
    const response = await model().invoke(request);
    expect(text(response.message)).toBe("Hello");
    expect(response.usage?.totalTokens).toBe(5);
  });

  it("a stream cut mid-event is a retryable stream_truncated error (clean end or reset socket)", async () => {
    for (const cutMode of ["end", "destroy"] as const) {
      server.reset();
      server.enqueue({
        headers: SSE,
        body: GOOD,
        cutAfterBytes: GOOD.indexOf("lo") + 1,
        cutMode,
        chunking: "frames",
      });
      const error = await drain(model().stream(request)).catch((e: unknown) => e);
      expect(ProviderError.isProviderError(error)).toBe(true);
      expect(error).toMatchObject({ retryable: true });
      expect(["stream_truncated", "stream_interrupted"]).toContain((error as ProviderError).providerCode);
    }
  });

  it("a stream that ends on an event boundary before any finish is truncated too", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: chunk({ content: "Hel" }) });
    await expect(model().invoke(request)).rejects.toMatchObject({
      providerCode: "stream_truncated",
      retryable: true,
    });
  });

  it("a stream cut after the finish chunk (no usage, no [DONE]) is accepted", async () => {
    const body = chunk({ content: "Hi" }) + chunk({}, "stop") + 'data: {"id":"c1","choi';
    server.reset();
    server.enqueue({ headers: SSE, body });
    const response = await model().invoke(request);
    expect(text(response.message)).toBe("Hi");
    expect(response.usage).toBeUndefined();
  });

  it("a 200 body that is not JSON says where to look", async () => {
    server.reset();
    server.enqueue({ headers: { "content-type": "text/html" }, body: "<html>proxy login</html>" });
    await expect(model().invoke(request)).rejects.toThrow(/OpenAI-compatible \/v1 endpoint/);
  });

  it("a JSON error body with status 200 on a streaming request throws a ProviderError", async () => {
    server.reset();
    server.enqueue({
      headers: { "content-type": "application/json" },
      body: '{"error":{"message":"model is loading","type":"server_error"}}',
    });
    await expect(drain(model().stream(request))).rejects.toMatchObject({
      providerCode: "server_error",
      retryable: true,
    });
  });

  it("context overflow is a context_overflow error", async () => {
    server.reset();
    server.enqueue({
      status: 400,
      headers: { "content-type": "application/json" },
      body: '{"error":{"message":"This model\'s maximum context length is 8192 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
    });
    await expect(model().invoke(request)).rejects.toMatchObject({
      code: "context_overflow",
      kind: "context_overflow",
    });
  });

  it("request.timeoutMs aborts with a timeout error and leaves no timer behind", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD, headerDelayMs: 500 });
    const started = Date.now();
    await expect(model().invoke({ ...request, timeoutMs: 50 })).rejects.toMatchObject({ code: "timeout" });
    expect(Date.now() - started).toBeLessThan(400);
  });

  it("the caller's signal cancels mid-stream", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD, chunking: "frames", delayMs: 30 });
    const controller = new AbortController();
    const seen: ModelStreamItem[] = [];
    const error = await (async () => {
      for await (const item of model().stream(request, { signal: controller.signal })) {
        seen.push(item);
        if (item.type === "text_delta") controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "cancelled" });
    expect(seen.filter((item) => item.type === "text_delta")).toHaveLength(1);
  });

  it("an unreachable endpoint names the URL and never the key", async () => {
    const dead = new OpenAiChatModel({ model: "m", baseUrl: "http://127.0.0.1:1/v1", apiKey: KEY });
    const error = (await dead.invoke(request).catch((e: unknown) => e)) as ProviderError;
    expect(error.message).toContain("http://127.0.0.1:1/v1/chat/completions");
    expect(JSON.stringify([error.message, error.details])).not.toContain(KEY);
  });

  it("the accumulated stream equals invoke for the same answer", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD, chunking: { every: 3 } }, { headers: SSE, body: GOOD });
    const accumulator = new StreamAccumulator({ provider: "openai" });
    for await (const item of model().stream(request)) accumulator.push(item);
    expect(accumulator.finish()).toEqual(await model().invoke(request));
  });

  it("sends headers: bearer key, extra headers, no key when none is set", async () => {
    server.reset();
    server.enqueue({ headers: SSE, body: GOOD }, { headers: SSE, body: GOOD });
    await model({ headers: { "OpenAI-Project": "proj_1" } }).invoke(request);
    expect(server.requests[0]?.headers).toMatchObject({
      authorization: `Bearer ${KEY}`,
      "openai-project": "proj_1",
    });
    await model({ apiKey: undefined }).invoke(request);
    expect(server.requests[1]?.headers.authorization).toBeUndefined();
  });

  it("exposes provider, model id and a secret-free cache identity", () => {
    const m = model({ provider: "groq" });
    expect(m.provider).toBe("groq");
    expect(m.modelId).toBe("gpt-4.1-mini");
    expect(m.cacheIdentity).toBe(`groq|gpt-4.1-mini|${server.url}/v1`);
    expect(m.cacheIdentity).not.toContain(KEY);
    expect(() => new OpenAiChatModel({ model: " " })).toThrow(/non-empty model id/);
  });
});
