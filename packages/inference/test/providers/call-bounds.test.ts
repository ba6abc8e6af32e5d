/**
 * Default bounds on a model call (issue 15 item 5), against loopback `node:http` servers, for
 * every HTTP adapter (OpenAI-compatible SSE, Anthropic SSE, Ollama NDJSON) through the shared
 * http layer: a silent server (accepts, never sends headers), a slow-loris (one byte at a time,
 * forever) and an endless keep-alive stream each end with a typed `timeout` whose message names
 * the limit and the option that changes it. The bounds here are short (configured); the default
 * values are checked in `src/http/call-bounds.test.ts`, virtual time in the harness's
 * `call-bounds-virtual-time.test.ts`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  AnthropicModel,
  type ChatModel,
  type ModelRequest,
  OllamaModel,
  OpenAiChatModel,
  OpenAiResponsesModel,
  TinyAgentsError,
  user,
} from "../../src/index.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Loopback {
  url: string;
  /** Connections still open (the client keeps none once it gave up). */
  openConnections(): number;
  close(): Promise<void>;
}

const servers: Loopback[] = [];
const timers = new Set<ReturnType<typeof setInterval>>();

afterEach(async () => {
  for (const t of timers) clearInterval(t);
  timers.clear();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<Loopback> {
  const sockets = new Set<Socket>();
  const state: Loopback = { url: "", openConnections: () => sockets.size, close: async () => {} };
  const server: Server = createServer((req, res) => {
    req.resume();
    handler(req, res);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  servers.push(state);
  return state;
}

/** Write `text` one byte every `everyMs`, then start over, forever (until the client leaves). */
function trickle(res: ServerResponse, text: string, everyMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      timers.delete(timer);
      return;
    }
    res.write(text[i % text.length]!);
    i++;
  }, everyMs);
  timers.add(timer);
}

/** Write `frame` every `everyMs`, forever. */
function repeat(res: ServerResponse, frame: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (res.destroyed) {
      clearInterval(timer);
      timers.delete(timer);
      return;
    }
    res.write(frame);
  }, everyMs);
  timers.add(timer);
}

interface Bounds {
  timeoutMs?: number;
  headersTimeoutMs?: number;
  streamIdleTimeoutMs?: number;
}

interface AdapterCase {
  name: string;
  build(url: string, bounds: Bounds): ChatModel;
  contentType: string;
  /** A frame that is not progress (keep-alive), sent forever. */
  keepAlive: string;
  /** The start of a frame that never completes (trickled one byte at a time). */
  unfinished: string;
  /** A whole frame with data (progress), for the "steady but endless" case. */
  progress: string;
  /** What the stream sends first so the frames after it are valid (Anthropic's message_start). */
  preamble: string;
}

const CASES: readonly AdapterCase[] = [
  {
    name: "OpenAI-compatible (SSE)",
    build: (url, bounds) =>
      new OpenAiChatModel({ model: "m", baseUrl: `${url}/v1`, apiKey: "k-123456", ...bounds }),
    contentType: "text/event-stream",
    keepAlive: ": keep-alive\n\n",
    unfinished:
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"aaaa',
    progress:
      'data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"}}]}\n\n',
    preamble: "",
  },
  {
    name: "Anthropic (SSE)",
    build: (url, bounds) =>
      new AnthropicModel({ model: "claude-x", baseUrl: url, apiKey: "k-123456", ...bounds }),
    contentType: "text/event-stream",
    keepAlive: 'event: ping\ndata: {"type": "ping"}\n\n',
    unfinished:
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"aaaa',
    progress:
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}\n\n',
    preamble:
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n' +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  },
  {
    name: "Ollama (NDJSON)",
    build: (url, bounds) => new OllamaModel({ model: "llama3.2", baseUrl: url, ...bounds }),
    contentType: "application/x-ndjson",
    keepAlive: "\n",
    unfinished:
      '{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"aaaa',
    progress:
      '{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"a"},"done":false}\n',
    preamble: "",
  },
];

const REQUEST: ModelRequest = { messages: [user("hi")] };

/** Run the model's stream to its end and return what it threw, with the elapsed time. */
async function streamError(model: ChatModel, request: ModelRequest = REQUEST) {
  const started = performance.now();
  let text = "";
  const error = await (async () => {
    const stream = model.stream?.(request);
    if (stream === undefined) throw new Error("no stream");
    for await (const item of stream) if (item.type === "text_delta") text += item.text;
  })().catch((e: unknown) => e);
  return { error, text, elapsedMs: performance.now() - started };
}

function expectTimeout(error: unknown, limit: string, value: number, option: string): TinyAgentsError {
  expect(TinyAgentsError.isInstance(error, "timeout")).toBe(true);
  const e = error as TinyAgentsError;
  expect(e.details).toMatchObject({ scope: "model_call", limit, value });
  expect(e.message).toContain(`${value} ms`);
  expect(e.message).toContain(`\`${option}\``);
  return e;
}

/** Wait until the client gave up: it keeps no connection to the server open. */
async function clientLeft(server: Loopback): Promise<void> {
  for (let i = 0; i < 500 && server.openConnections() > 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(server.openConnections()).toBe(0);
}

describe.each(CASES)("call bounds against loopback servers: $name", (c) => {
  it("a silent server (accepts, never sends headers): a streamed call ends with headers_timeout", async () => {
    const server = await serve(() => undefined);
    const { error, elapsedMs } = await streamError(c.build(server.url, { headersTimeoutMs: 200 }));
    expectTimeout(error, "headers_timeout", 200, "headersTimeoutMs");
    expect((error as Error).message).toContain("waiting for the response headers");
    expect(elapsedMs).toBeGreaterThanOrEqual(190);
    await clientLeft(server);
  });

  it("a silent server: a unary call (headers come with the answer) ends with the total timeout", async () => {
    const server = await serve(() => undefined);
    const started = performance.now();
    const error = await c
      .build(server.url, { timeoutMs: 300 })
      .invoke(REQUEST)
      .catch((e: unknown) => e);
    expectTimeout(error, "model_call_timeout", 300, "timeoutMs");
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    await clientLeft(server);
  });

  it("a slow-loris (one byte every 40 ms of a frame that never completes) ends with stream_idle_timeout", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": c.contentType });
      res.write(c.preamble);
      trickle(res, c.unfinished, 40);
    });
    const { error, elapsedMs } = await streamError(c.build(server.url, { streamIdleTimeoutMs: 400 }));
    const e = expectTimeout(error, "stream_idle_timeout", 400, "streamIdleTimeoutMs");
    // Bytes kept arriving; they were not progress.
    expect((e.details as { receivedBytes: number }).receivedBytes).toBeGreaterThan(c.preamble.length);
    expect(elapsedMs).toBeGreaterThanOrEqual(390);
    await clientLeft(server);
  });

  it("an endless keep-alive stream (keep-alives every 30 ms, no data) ends with stream_idle_timeout", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": c.contentType });
      res.write(c.preamble);
      repeat(res, c.keepAlive, 30);
    });
    const { error } = await streamError(c.build(server.url, { streamIdleTimeoutMs: 300 }));
    expectTimeout(error, "stream_idle_timeout", 300, "streamIdleTimeoutMs");
    await clientLeft(server);
  });

  it("a steady stream that never ends (a delta every 30 ms) is cut by the total timeout; the deltas were delivered", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": c.contentType });
      res.write(c.preamble);
      repeat(res, c.progress, 30);
    });
    const { error, text } = await streamError(
      c.build(server.url, { timeoutMs: 500, streamIdleTimeoutMs: 200 }),
    );
    expectTimeout(error, "model_call_timeout", 500, "timeoutMs");
    expect(text.length).toBeGreaterThan(0);
    await clientLeft(server);
  });

  it("per call: request.headersTimeoutMs / timeoutMs override the model's bounds, and 0 removes one", async () => {
    const server = await serve(() => undefined);
    const model = c.build(server.url, { headersTimeoutMs: 60_000, timeoutMs: 60_000 });
    const headers = await streamError(model, { ...REQUEST, headersTimeoutMs: 150 });
    expectTimeout(headers.error, "headers_timeout", 150, "headersTimeoutMs");
    // No headers bound for this call: the total one (per call too) ends it.
    const total = await streamError(model, { ...REQUEST, headersTimeoutMs: 0, timeoutMs: 250 });
    expectTimeout(total.error, "model_call_timeout", 250, "timeoutMs");
  });

  it("the caller's abort still wins, as `cancelled`", async () => {
    const server = await serve(() => undefined);
    const controller = new AbortController();
    const pending = (async () => {
      for await (const _ of c.build(server.url, { headersTimeoutMs: 10_000 }).stream?.(REQUEST, {
        signal: controller.signal,
      }) ?? []) {
        // nothing arrives
      }
    })().catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 50);
    expect(TinyAgentsError.isInstance(await pending, "cancelled")).toBe(true);
  });
});

describe("call bounds: the OpenAI Responses adapter goes through the same layer", () => {
  it("silent server: headers_timeout (streamed), model_call_timeout (unary); keep-alives: stream_idle_timeout", async () => {
    const silent = await serve(() => undefined);
    const build = (url: string, bounds: Bounds) =>
      new OpenAiResponsesModel({ model: "m", apiKey: "k-123456", env: {}, baseUrl: `${url}/v1`, ...bounds });
    const streamed = await streamError(build(silent.url, { headersTimeoutMs: 150 }));
    expectTimeout(streamed.error, "headers_timeout", 150, "headersTimeoutMs");
    const unary = await build(silent.url, { timeoutMs: 200 })
      .invoke(REQUEST)
      .catch((e: unknown) => e);
    expectTimeout(unary, "model_call_timeout", 200, "timeoutMs");
    const keepAlive = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      repeat(res, ": keep-alive\n\n", 30);
    });
    const idle = await streamError(build(keepAlive.url, { streamIdleTimeoutMs: 250 }));
    expectTimeout(idle.error, "stream_idle_timeout", 250, "streamIdleTimeoutMs");
  });
});

describe("call bounds with a fetch that ignores its signal", () => {
  it("the headers timeout still ends the call", async () => {
    const model = new OpenAiChatModel({
      model: "m",
      baseUrl: "http://127.0.0.1:9/v1",
      headersTimeoutMs: 100,
      fetch: () => new Promise<Response>(() => undefined),
    });
    const { error } = await streamError(model);
    expectTimeout(error, "headers_timeout", 100, "headersTimeoutMs");
  });
});
