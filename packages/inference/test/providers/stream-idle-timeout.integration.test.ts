/**
 * The stream idle timeout on each adapter's streaming path (OpenAI-compatible SSE, Anthropic SSE,
 * Ollama NDJSON), against the replay server: a stream that stalls after partial output fails with
 * the typed `timeout` error naming the idle timeout (the partial output was delivered first); a
 * slow but steady stream completes; an abort during a stall gives the abort error; the request's
 * `streamIdleTimeoutMs` overrides the model's; and nothing — timer, socket, abort listener — is
 * left behind by any of it.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { activeResources, settleResources } from "../../../../test/setup/active-resources.js";
import {
  AnthropicModel,
  type ChatModel,
  createModel,
  DEFAULT_STREAM_IDLE_TIMEOUT_MS,
  isStreamIdleTimeout,
  type ModelRequest,
  type ModelStreamItem,
  OllamaModel,
  OpenAiChatModel,
  openai,
  TinyAgentsError,
  user,
} from "../../src/index.js";
import { chunk, FAULT_MODEL, sse, textChunks } from "../faults/wire.js";
import { exchangeBody, loadFixture, replayOf } from "../replay/fixtures.js";
import { type ReplayResponse, ReplayServer } from "../replay/replay-server.js";
import { realSleep } from "../support/loopback.js";
import { fixtureDir } from "./parity.js";

/** One adapter's streaming path: how to build it, what it streams, where to cut it. */
interface AdapterCase {
  name: string;
  provider: string;
  modelId: string;
  build(baseUrl: string, streamIdleTimeoutMs?: number): ChatModel;
  /** The whole streamed answer (served in frames). */
  stream: ReplayResponse;
  /** The whole answer's text. */
  text: string;
  /** Bytes after which the stream stalls, and the text delivered before that. */
  stallAfterBytes: number;
  partial: string;
  /** A non-streamed (unary) JSON answer, for the adapters whose `invoke` reads one. */
  unary?: ReplayResponse;
}

const OPENAI_SSE = sse(textChunks(["Hel", "lo ", "world"]));
const anthropicDir = fixtureDir("anthropic");
const anthropicText = loadFixture(anthropicDir, "text");
const ANTHROPIC_SSE = Buffer.from(exchangeBody(anthropicDir, anthropicText.stream!)).toString("utf8");
const ollamaDir = fixtureDir("ollama");
const ollamaText = loadFixture(ollamaDir, "text");
const OLLAMA_NDJSON = Buffer.from(exchangeBody(ollamaDir, ollamaText.stream!)).toString("utf8");

const CASES: readonly AdapterCase[] = [
  {
    name: "OpenAI-compatible (SSE)",
    provider: "openai",
    modelId: FAULT_MODEL,
    build: (baseUrl, streamIdleTimeoutMs) =>
      new OpenAiChatModel({
        model: FAULT_MODEL,
        baseUrl: `${baseUrl}/v1`,
        apiKey: "test-key-0123456789",
        ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
      }),
    stream: {
      status: 200,
      headers: { "content-type": "text/event-stream" },
      body: OPENAI_SSE,
      chunking: "frames",
    },
    text: "Hello world",
    // The role chunk and the "Hel" chunk arrive, then nothing.
    stallAfterBytes: OPENAI_SSE.indexOf("data:", OPENAI_SSE.indexOf('"Hel"')),
    partial: "Hel",
  },
  {
    name: "Anthropic (SSE)",
    provider: "anthropic",
    modelId: "claude-sonnet-4-6",
    build: (baseUrl, streamIdleTimeoutMs) =>
      new AnthropicModel({
        apiKey: "sk-ant-api03-TESTKEYdoNOTleak",
        baseUrl,
        model: "claude-sonnet-4-6",
        ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
      }),
    stream: replayOf(anthropicDir, anthropicText.stream!, { chunking: "frames" }),
    text: "The capital of France is Paris — home of the Eiffel Tower 🗼 and about 2.1 million people.",
    stallAfterBytes: Buffer.byteLength(
      ANTHROPIC_SSE.slice(0, ANTHROPIC_SSE.indexOf("event:", ANTHROPIC_SSE.indexOf('"The capital"'))),
    ),
    partial: "The capital",
    unary: replayOf(anthropicDir, anthropicText.unary!),
  },
  {
    name: "Ollama (NDJSON)",
    provider: "ollama",
    modelId: "qwen3:8b",
    build: (baseUrl, streamIdleTimeoutMs) =>
      new OllamaModel({
        baseUrl,
        model: "qwen3:8b",
        env: {},
        ...(streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs }),
      }),
    stream: replayOf(ollamaDir, ollamaText.stream!, { chunking: "frames" }),
    text: "The capital of France is Paris 🇫🇷.",
    stallAfterBytes: Buffer.byteLength(OLLAMA_NDJSON.slice(0, OLLAMA_NDJSON.indexOf("\n") + 1)),
    partial: "The",
    unary: replayOf(ollamaDir, ollamaText.unary!),
  },
];

interface Outcome {
  items: ModelStreamItem[];
  text: string;
  error: unknown;
  elapsedMs: number;
}

/** Stream once, collecting what arrived before the end or the failure. */
async function streamOnce(
  model: ChatModel,
  request: ModelRequest,
  signal: AbortSignal,
  onItem?: (item: ModelStreamItem) => void | Promise<void>,
): Promise<Outcome> {
  const items: ModelStreamItem[] = [];
  const started = performance.now();
  try {
    for await (const item of model.stream!(request, { signal })) {
      items.push(item);
      await onItem?.(item);
    }
    return { items, text: textOf(items), error: undefined, elapsedMs: performance.now() - started };
  } catch (error) {
    return { items, text: textOf(items), error, elapsedMs: performance.now() - started };
  }
}

function textOf(items: readonly ModelStreamItem[]): string {
  return items.map((i) => (i.type === "text_delta" ? i.text : "")).join("");
}

/**
 * Run `body` against a fresh replay server serving `responses` (then a 599), and check hygiene
 * afterwards: no abort listener left on the caller's signal, and no new timer or socket.
 */
async function withServer<T>(
  responses: ReplayResponse[],
  body: (baseUrl: string, signal: AbortSignal, controller: AbortController) => Promise<T>,
): Promise<T> {
  const baseline = activeResources();
  const server = await ReplayServer.start();
  server.enqueue(...responses);
  const controller = new AbortController();
  try {
    const result = await body(server.url, controller.signal, controller);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    return result;
  } finally {
    await server.close();
    expect(await settleResources(baseline)).toEqual([]);
  }
}

const request: ModelRequest = { messages: [user("Hello")], maxTokens: 256 };

describe.each(CASES)("stream idle timeout: $name", (c) => {
  it("a stall after partial output fails with a typed timeout naming the idle timeout; the partial output was delivered", async () => {
    const outcome = await withServer([{ ...c.stream, stallAfterBytes: c.stallAfterBytes }], (url, signal) =>
      streamOnce(c.build(url, 150), request, signal),
    );
    expect(outcome.text).toBe(c.partial);
    expect(isStreamIdleTimeout(outcome.error)).toBe(true);
    const error = outcome.error as TinyAgentsError;
    expect(error.code).toBe("timeout");
    expect(error.message).toContain(`no data for 150 ms from ${c.provider} ${c.modelId}`);
    expect(error.message).toContain(`stalled after ${c.stallAfterBytes} bytes`);
    expect(error.message).toContain("raise `streamIdleTimeoutMs`");
    expect(error.details).toEqual({
      scope: "model_call",
      limit: "stream_idle_timeout",
      value: 150,
      provider: c.provider,
      model: c.modelId,
      receivedBytes: c.stallAfterBytes,
    });
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(140);
    expect(outcome.elapsedMs).toBeLessThan(5000);
  });

  it("headers and then nothing: the wait for the first byte counts", async () => {
    const outcome = await withServer([{ ...c.stream, stallAfterBytes: 0 }], (url, signal) =>
      streamOnce(c.build(url, 100), request, signal),
    );
    expect(outcome.items).toEqual([]);
    expect(isStreamIdleTimeout(outcome.error)).toBe(true);
    expect((outcome.error as Error).message).toContain("nothing arrived after the response headers");
  });

  it("a slow but steady stream (a frame every 60 ms, idle 250 ms) completes, though it lasts longer than the idle timeout", async () => {
    const outcome = await withServer([{ ...c.stream, delayMs: 60 }], (url, signal) =>
      streamOnce(c.build(url, 250), request, signal),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe(c.text);
    expect(outcome.elapsedMs).toBeGreaterThan(250);
  });

  it("a consumer slower than the idle timeout does not trip it (only waiting for the server counts)", async () => {
    const outcome = await withServer([c.stream], (url, signal) =>
      streamOnce(c.build(url, 60), request, signal, async (item) => {
        if (item.type === "text_delta") await realSleep(100);
      }),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe(c.text);
  });

  it("an abort during a stall gives the abort error, not the idle timeout", async () => {
    const outcome = await withServer(
      [{ ...c.stream, stallAfterBytes: c.stallAfterBytes }],
      (url, signal, controller) => {
        let aborting: Promise<void> | undefined;
        return streamOnce(c.build(url, 400), request, signal, (item) => {
          if (item.type === "text_delta" && aborting === undefined) {
            aborting = realSleep(60).then(() => controller.abort());
          }
        }).then(async (outcome) => {
          await aborting;
          return outcome;
        });
      },
    );
    expect(outcome.text).toBe(c.partial);
    expect(TinyAgentsError.isInstance(outcome.error, "cancelled")).toBe(true);
    expect(outcome.elapsedMs).toBeLessThan(400);
  });

  it("request.streamIdleTimeoutMs overrides the model's; 0 disables it, and the call timeout still bounds the stall", async () => {
    const stalled = { ...c.stream, stallAfterBytes: c.stallAfterBytes };
    const { tighter, disabled } = await withServer([stalled, stalled], async (url, signal) => ({
      // The model would wait 30 s; the request says 120 ms.
      tighter: await streamOnce(c.build(url, 30_000), { ...request, streamIdleTimeoutMs: 120 }, signal),
      // The model says 50 ms; the request disables it: only request.timeoutMs ends the stall.
      disabled: await streamOnce(
        c.build(url, 50),
        { ...request, streamIdleTimeoutMs: 0, timeoutMs: 400 },
        signal,
      ),
    }));
    expect(isStreamIdleTimeout(tighter.error)).toBe(true);
    expect((tighter.error as TinyAgentsError).details?.value).toBe(120);
    expect(TinyAgentsError.isInstance(disabled.error, "timeout")).toBe(true);
    expect(isStreamIdleTimeout(disabled.error)).toBe(false);
    expect((disabled.error as Error).message).toContain("timed out");
    expect(disabled.elapsedMs).toBeGreaterThanOrEqual(390);
  });

  it("a shorter request.timeoutMs still wins over the idle timeout", async () => {
    const outcome = await withServer([{ ...c.stream, stallAfterBytes: c.stallAfterBytes }], (url, signal) =>
      streamOnce(c.build(url, 2_000), { ...request, timeoutMs: 150 }, signal),
    );
    expect(TinyAgentsError.isInstance(outcome.error, "timeout")).toBe(true);
    expect(isStreamIdleTimeout(outcome.error)).toBe(false);
    expect(outcome.text).toBe(c.partial);
  });

  it("the option defaults to DEFAULT_STREAM_IDLE_TIMEOUT_MS and rejects a negative value", () => {
    const model = c.build("http://127.0.0.1:9") as ChatModel & { streamIdleTimeoutMs: number };
    expect(model.streamIdleTimeoutMs).toBe(DEFAULT_STREAM_IDLE_TIMEOUT_MS);
    expect(() => c.build("http://127.0.0.1:9", -1)).toThrow(/streamIdleTimeoutMs must be a number/);
    expect(() => c.build("http://127.0.0.1:9", Number.NaN)).toThrow(/streamIdleTimeoutMs/);
  });

  if (c.unary !== undefined) {
    it("a unary (JSON) body is not subject to the idle timeout: request.timeoutMs bounds it", async () => {
      const unary = c.unary;
      const outcome = await withServer([{ ...unary, stallAfterBytes: 20 }], async (url, signal) => {
        const started = performance.now();
        const error = await c
          .build(url, 50)
          .invoke({ ...request, timeoutMs: 300 }, { signal })
          .catch((e: unknown) => e);
        return { error, elapsedMs: performance.now() - started };
      });
      expect(TinyAgentsError.isInstance(outcome.error, "timeout")).toBe(true);
      expect(isStreamIdleTimeout(outcome.error)).toBe(false);
      expect(outcome.elapsedMs).toBeGreaterThanOrEqual(290);
    });
  }
});

describe("stream idle timeout: OpenAI-compatible specifics", () => {
  const build = (url: string, idle: number) =>
    new OpenAiChatModel({ model: FAULT_MODEL, baseUrl: `${url}/v1`, apiKey: "k", streamIdleTimeoutMs: idle });

  it("invoke() on a lax server that answers with SSE is bounded by the idle timeout too", async () => {
    const error = await withServer(
      [
        {
          status: 200,
          headers: { "content-type": "text/event-stream" },
          body: OPENAI_SSE,
          chunking: "frames",
          stallAfterBytes: 40,
        },
      ],
      (url, signal) =>
        build(url, 100)
          .invoke(request, { signal })
          .catch((e: unknown) => e),
    );
    expect(isStreamIdleTimeout(error)).toBe(true);
  });

  it("a stream that hangs right after its finish chunk (no usage, no [DONE]) still is a whole answer", async () => {
    const body = sse([chunk({ role: "assistant", content: "ok" }), chunk({}, { finish: "stop" })], false);
    const outcome = await withServer(
      [{ status: 200, headers: { "content-type": "text/event-stream" }, body, stallAfterBytes: body.length }],
      (url, signal) => streamOnce(build(url, 100), request, signal),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe("ok");
    expect(outcome.items.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("presets and createModel pass streamIdleTimeoutMs through", () => {
    const env = { OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k" };
    expect(openai({ env, streamIdleTimeoutMs: 1234 }).streamIdleTimeoutMs).toBe(1234);
    expect(
      (createModel("openai:gpt-4.1-mini", { env, streamIdleTimeoutMs: 0 }) as OpenAiChatModel)
        .streamIdleTimeoutMs,
    ).toBe(0);
    expect(
      (createModel("anthropic:claude-sonnet-4-6", { env, streamIdleTimeoutMs: 99 }) as AnthropicModel)
        .streamIdleTimeoutMs,
    ).toBe(99);
    expect(openai({ env }).streamIdleTimeoutMs).toBe(DEFAULT_STREAM_IDLE_TIMEOUT_MS);
  });
});
