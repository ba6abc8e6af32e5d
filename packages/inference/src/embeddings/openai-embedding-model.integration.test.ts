import { describe, expect, it } from "vitest";
import { useReplayServer } from "../../test/support/replay.js";
import { ProviderError } from "../errors/provider-error.js";
import { TinyAgentsError } from "../errors/tinyagents-error.js";
import { encodeBase64 } from "../multimodal/base64.js";
import { OpenAiEmbeddingModel, type OpenAiEmbeddingModelOptions } from "./openai-embedding-model.js";
import { recordingClock } from "./test-clock.fixture.js";

const KEY = "sk-embed-0123456789abcdefghij";
const JSON_HEADERS = { "content-type": "application/json" };

const server = useReplayServer();

function model(options: OpenAiEmbeddingModelOptions = {}) {
  return new OpenAiEmbeddingModel({ baseUrl: `${server.url}/v1`, apiKey: KEY, env: {}, ...options });
}

/** An OpenAI `/embeddings` answer: vector i is [i, i + 0.5] offset by `base`. */
function answer(count: number, base = 0, promptTokens = count * 3): string {
  return JSON.stringify({
    object: "list",
    data: Array.from({ length: count }, (_, i) => ({
      object: "embedding",
      index: i,
      embedding: [base + i, base + i + 0.5],
    })),
    model: "text-embedding-3-small",
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  });
}

describe("OpenAiEmbeddingModel over HTTP", () => {
  it("sends the documented body and headers and reads vectors and usage", async () => {
    server.enqueue({ headers: JSON_HEADERS, body: answer(2) });
    const embedder = model({ dimensions: 2 });
    const result = await embedder.embed(["hello", "world"]);
    expect(server.lastRequest.path).toBe("/v1/embeddings");
    expect(server.lastRequest.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.lastRequest.json()).toEqual({
      model: "text-embedding-3-small",
      input: ["hello", "world"],
      dimensions: 2,
    });
    expect(result.vectors).toEqual([
      [0, 0.5],
      [1, 1.5],
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 6, outputTokens: 0, totalTokens: 6 });
    expect(embedder.dimensions).toBe(2);
  });

  it("splits long lists into batches and keeps the order; usage is summed", async () => {
    server.enqueue(
      { headers: JSON_HEADERS, body: answer(2, 0) },
      { headers: JSON_HEADERS, body: answer(2, 10) },
      { headers: JSON_HEADERS, body: answer(1, 20) },
    );
    const embedder = model({ maxBatchSize: 2 });
    expect(embedder.dimensions).toBeUndefined();
    const result = await embedder.embed(["a", "b", "c", "d", "e"]);
    expect(server.requests.map((r) => (r.json() as { input: string[] }).input)).toEqual([
      ["a", "b"],
      ["c", "d"],
      ["e"],
    ]);
    expect(result.vectors.map((v) => v[0])).toEqual([0, 1, 10, 11, 20]);
    expect(result.usage?.inputTokens).toBe(15);
    expect(embedder.dimensions).toBe(2);
  });

  it("orders rows by index and decodes base64 float32 embeddings", async () => {
    const floats = new Float32Array([0.25, -1.5]);
    const b64 = encodeBase64(new Uint8Array(floats.buffer));
    server.enqueue({
      headers: JSON_HEADERS,
      body: JSON.stringify({
        data: [
          { index: 1, embedding: b64 },
          { index: 0, embedding: [1, 2] },
        ],
      }),
    });
    const result = await model().embed(["x", "y"]);
    expect(result.vectors).toEqual([
      [1, 2],
      [0.25, -1.5],
    ]);
    expect(result.usage).toBeUndefined();
  });

  it("waits out a 429's retry-after through the clock, then succeeds", async () => {
    const clock = recordingClock();
    server.enqueue(
      {
        status: 429,
        headers: { ...JSON_HEADERS, "retry-after": "1.5" },
        body: JSON.stringify({
          error: {
            message: "Rate limit reached for requests",
            type: "requests",
            code: "rate_limit_exceeded",
          },
        }),
      },
      { status: 503, headers: JSON_HEADERS, body: JSON.stringify({ error: { message: "overloaded" } }) },
      { headers: JSON_HEADERS, body: answer(1) },
    );
    const result = await model({ clock }).embed(["hello"]);
    expect(result.vectors).toEqual([[0, 0.5]]);
    expect(clock.sleeps).toEqual([1500, 1000]);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.every((r) => r.body === server.requests[0]!.body)).toBe(true);
  });

  it("gives up after maxRetries, and at once when retry-after exceeds maxDelayMs", async () => {
    const limited = {
      status: 429,
      headers: { ...JSON_HEADERS, "retry-after": "2" },
      body: JSON.stringify({ error: { message: "Rate limit reached", code: "rate_limit_exceeded" } }),
    };
    const clock = recordingClock();
    server.enqueue(limited, limited);
    const error = await model({ clock, retry: { maxRetries: 1 } })
      .embed(["x"])
      .catch((caught: unknown) => caught);
    expect(ProviderError.isProviderError(error) && error.kind).toBe("rate_limited");
    expect(clock.sleeps).toEqual([2000]);

    server.reset();
    const patient = recordingClock();
    server.enqueue(limited);
    await expect(model({ clock: patient, retry: { maxDelayMs: 1000 } }).embed(["x"])).rejects.toMatchObject({
      retryAfterMs: 2000,
    });
    expect(patient.sleeps).toEqual([]);
  });

  it("does not retry a 400, and reports malformed answers clearly", async () => {
    server.enqueue({
      status: 400,
      headers: JSON_HEADERS,
      body: JSON.stringify({
        error: {
          message: "This model's maximum context length is 8192 tokens",
          type: "invalid_request_error",
        },
      }),
    });
    await expect(model({ clock: recordingClock() }).embed(["x"])).rejects.toMatchObject({ status: 400 });
    expect(server.requests).toHaveLength(1);
    server.enqueue({ headers: JSON_HEADERS, body: JSON.stringify({ data: [{ embedding: [1] }] }) });
    await expect(model().embed(["a", "b"])).rejects.toThrow(/returned 1 vectors for 2 inputs/);
    server.enqueue({ headers: JSON_HEADERS, body: answer(1) });
    await expect(model({ dimensions: 8 }).embed(["a"])).rejects.toThrow(
      /2-dimensional vectors where 8 were expected/,
    );
  });

  it("reuses the presets' base URLs and key variables", async () => {
    server.enqueue({ headers: JSON_HEADERS, body: answer(1) });
    const mistral = new OpenAiEmbeddingModel({
      preset: "mistral",
      env: { MISTRAL_API_KEY: "mk-1234567890abcdef", MISTRAL_BASE_URL: server.url },
    });
    expect([mistral.provider, mistral.modelId, mistral.baseUrl]).toEqual([
      "mistral",
      "mistral-embed",
      `${server.url}/v1`,
    ]);
    await mistral.embed(["bonjour"]);
    expect(server.lastRequest.headers.authorization).toBe("Bearer mk-1234567890abcdef");
    const local = new OpenAiEmbeddingModel({ preset: "ollama", env: { OLLAMA_HOST: "127.0.0.1:9" } });
    expect([local.baseUrl, local.modelId]).toEqual(["http://127.0.0.1:9/v1", "nomic-embed-text"]);
    const fromEnv = new OpenAiEmbeddingModel({
      env: { OPENAI_API_KEY: "sk-x", OPENAI_EMBEDDING_MODEL: "text-embedding-3-large" },
    });
    expect([fromEnv.baseUrl, fromEnv.modelId]).toEqual([
      "https://api.openai.com/v1",
      "text-embedding-3-large",
    ]);
  });

  it("refuses a missing key, a preset without a default model and empty inputs", async () => {
    expect(() => new OpenAiEmbeddingModel({ env: {} })).toThrow(
      /set the OPENAI_API_KEY environment variable/,
    );
    expect(() => new OpenAiEmbeddingModel({ preset: "groq", env: { GROQ_API_KEY: "k" } })).toThrow(
      /groq preset has no default embedding model; pass \{ model \}/,
    );
    const error = await model()
      .embed(["ok", ""])
      .catch((caught: unknown) => caught);
    expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
    expect((error as Error).message).toMatch(/texts\[1\] is empty/);
    expect(await model().embed([])).toEqual({ vectors: [] });
    expect(server.requests).toHaveLength(0);
  });

  it("an abort during a retry wait is a cancelled error", async () => {
    const controller = new AbortController();
    const clock = {
      now: () => 0,
      sleep: async (_ms: number, signal?: AbortSignal) => {
        controller.abort();
        throw signal?.reason;
      },
    };
    server.enqueue({ status: 503, headers: JSON_HEADERS, body: "{}" });
    const error = await model({ clock })
      .embed(["x"], { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(TinyAgentsError.isInstance(error, "cancelled")).toBe(true);
  });
});
