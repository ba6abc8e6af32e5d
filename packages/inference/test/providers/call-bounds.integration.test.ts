/**
 * Default bounds on a model call (issue 15 item 5) fire on REAL timers against loopback `node:http`
 * servers: one representative per bound, through the OpenAI-compatible adapter (every HTTP adapter
 * shares the http layer that enforces them). A silent server (accepts, never sends headers) ends a
 * streamed call with `headers_timeout` and a unary one with the total timeout; a slow-loris (one
 * byte at a time, forever) ends with `stream_idle_timeout`; each time the client leaves, closing
 * its connection. Every adapter and every case (keep-alives, endless progress, per-call bounds,
 * the caller's abort, a fetch that ignores its signal) runs on virtual time in the harness's
 * `call-bounds-virtual-time.test.ts`; the default values are checked in `src/http/call-bounds.test.ts`.
 * Budget: about 1 s (three waits of 200-400 ms).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatModel, type ModelRequest, user } from "../../src/index.js";
import { BOUNDED_ADAPTERS, expectTimeout } from "../support/call-bounds.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

interface Loopback {
  url: string;
  /** Connections still open (the client keeps none once it gave up). */
  openConnections(): number;
  /** Resolves once no connection is open (at once if none is). */
  allClosed(): Promise<void>;
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
  const idle: (() => void)[] = [];
  const state: Loopback = {
    url: "",
    openConnections: () => sockets.size,
    allClosed: () => new Promise<void>((resolve) => (sockets.size === 0 ? resolve() : idle.push(resolve))),
    close: async () => {},
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    handler(req, res);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      if (sockets.size === 0) for (const resolve of idle.splice(0)) resolve();
    });
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

/** Wait until the client gave up: it keeps no connection to the server open (the test times out if it never does). */
async function clientLeft(server: Loopback): Promise<void> {
  await server.allClosed();
  expect(server.openConnections()).toBe(0);
}

const c = BOUNDED_ADAPTERS[0]!;

describe(`call bounds on real timers against loopback servers: ${c.name}`, () => {
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
});
