import { describe, expect, it } from "vitest";
import { useReplayServer } from "../../test/support/replay.js";
import { OllamaEmbeddingModel } from "./ollama-embedding-model.js";
import { recordingClock } from "./test-clock.fixture.js";

const JSON_HEADERS = { "content-type": "application/json" };

const server = useReplayServer();

const answer = (vectors: number[][], tokens: number) =>
  JSON.stringify({
    model: "nomic-embed-text",
    embeddings: vectors,
    total_duration: 14143917,
    load_duration: 1019500,
    prompt_eval_count: tokens,
  });

describe("OllamaEmbeddingModel over HTTP", () => {
  it("posts to /api/embed with the documented body and reads embeddings and prompt_eval_count", async () => {
    server.enqueue({
      headers: JSON_HEADERS,
      body: answer(
        [
          [0.1, 0.2, 0.3],
          [0.4, 0.5, 0.6],
        ],
        8,
      ),
    });
    const model = new OllamaEmbeddingModel({
      baseUrl: `${server.url}/`,
      env: {},
      truncate: false,
      keepAlive: "5m",
      options: { num_ctx: 2048 },
    });
    const result = await model.embed(["why is the sky blue?", ""]);
    expect(server.lastRequest.path).toBe("/api/embed");
    expect(server.lastRequest.json()).toEqual({
      model: "nomic-embed-text",
      input: ["why is the sky blue?", ""],
      truncate: false,
      keep_alive: "5m",
      options: { num_ctx: 2048 },
    });
    expect(result.vectors).toEqual([
      [0.1, 0.2, 0.3],
      [0.4, 0.5, 0.6],
    ]);
    expect(result.usage).toMatchObject({ inputTokens: 8, totalTokens: 8 });
    expect(model.dimensions).toBe(3);
  });

  it("reads OLLAMA_HOST and OLLAMA_EMBEDDING_MODEL, and batches", async () => {
    const port = new URL(server.url).port;
    server.enqueue(
      { headers: JSON_HEADERS, body: answer([[1], [2]], 2) },
      { headers: JSON_HEADERS, body: answer([[3]], 1) },
    );
    const model = new OllamaEmbeddingModel({
      env: { OLLAMA_HOST: `127.0.0.1:${port}`, OLLAMA_EMBEDDING_MODEL: "all-minilm" },
      maxBatchSize: 2,
    });
    const result = await model.embed(["a", "b", "c"]);
    expect(result.vectors).toEqual([[1], [2], [3]]);
    expect(result.usage?.inputTokens).toBe(3);
    expect(server.requests.map((r) => r.json())).toEqual([
      { model: "all-minilm", input: ["a", "b"] },
      { model: "all-minilm", input: ["c"] },
    ]);
  });

  it("retries a 503 'server busy', and turns a 404 into a clear error", async () => {
    const clock = recordingClock();
    server.enqueue(
      {
        status: 503,
        headers: JSON_HEADERS,
        body: JSON.stringify({ error: "server busy, please try again.  maximum pending requests exceeded" }),
      },
      { headers: JSON_HEADERS, body: answer([[1, 2]], 1) },
    );
    const model = new OllamaEmbeddingModel({ baseUrl: server.url, env: {}, clock });
    expect((await model.embed(["x"])).vectors).toEqual([[1, 2]]);
    expect(clock.sleeps).toEqual([500]);

    server.enqueue({
      status: 404,
      headers: JSON_HEADERS,
      body: JSON.stringify({ error: 'model "nomic-embed-text" not found, try pulling it first' }),
    });
    await expect(model.embed(["x"])).rejects.toMatchObject({
      status: 404,
      retryable: false,
      message: expect.stringMatching(/try pulling it first/),
    });
  });

  it("reports an answer without embeddings, or of the wrong length", async () => {
    server.enqueue({ headers: JSON_HEADERS, body: JSON.stringify({ model: "m" }) });
    const model = new OllamaEmbeddingModel({ baseUrl: server.url, env: {}, dimensions: 2 });
    await expect(model.embed(["x"])).rejects.toThrow(/returned no `embeddings` list/);
    server.enqueue({ headers: JSON_HEADERS, body: answer([[1, 2, 3]], 1) });
    await expect(model.embed(["x"])).rejects.toThrow(/3-dimensional vectors where 2 were expected/);
    expect(server.requests.at(-1)?.json()).toEqual({
      model: "nomic-embed-text",
      input: ["x"],
      dimensions: 2,
    });
  });
});
