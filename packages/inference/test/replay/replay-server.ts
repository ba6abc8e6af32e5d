/**
 * A replay HTTP server for provider tests: `node:http` on 127.0.0.1 with an ephemeral port.
 * It serves queued responses (status, headers, body) exactly as given — optionally chunked at
 * awkward byte boundaries, slowed down, stalled or cut off mid-body — and records every request
 * (method, path, headers, body) so a test can assert what an adapter SENT.
 *
 * Generic on purpose: the OpenAI-compatible, Anthropic and Ollama adapter tests all use it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Chunking, splitBody } from "./split-body.js";

export { type Chunking, splitBody } from "./split-body.js";

/** One response to serve. */
export interface ReplayResponse {
  /** HTTP status (default 200). */
  status?: number;
  /** Response headers, sent as given (add `content-type` yourself). */
  headers?: Record<string, string>;
  /** The body bytes (a string is sent as UTF-8). Default: empty. */
  body?: string | Uint8Array;
  /** How to cut the body into writes (default `"whole"`). */
  chunking?: Chunking;
  /** Stop after this many body bytes: simulates a connection cut mid-body. */
  cutAfterBytes?: number;
  /**
   * How to stop at `cutAfterBytes`: `"end"` finishes the response cleanly (the client sees a
   * short but well-formed body), `"destroy"` resets the socket (the client sees a network
   * error while reading). Default `"end"`.
   */
  cutMode?: "end" | "destroy";
  /** Milliseconds to wait between writes (default 0: one event-loop turn). */
  delayMs?: number;
  /** Milliseconds to wait before sending the status line (to test timeouts). */
  headerDelayMs?: number;
  /**
   * Send this many body bytes, then stall: no more bytes and no end, until the client gives up
   * (disconnects) or the server closes. Simulates a stream that hangs mid-answer.
   */
  stallAfterBytes?: number;
}

/** A request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/chat/completions`. */
  path: string;
  /** Header names lower-cased; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The raw body text. */
  body: string;
  /** The body parsed as JSON (throws when it is not JSON). */
  json(): unknown;
}

/** Decides the response for a request (instead of the FIFO queue). */
export type ReplayHandler = (request: RecordedRequest) => ReplayResponse | Promise<ReplayResponse>;

/**
 * The replay server. Start with {@link ReplayServer.start} and always `close()` it, or let
 * `useReplayServer()` (test/support/replay.ts) do both around a test file.
 */
export class ReplayServer {
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ReplayResponse[] = [];
  private handler: ReplayHandler | undefined;
  private readonly server: Server;
  private port = 0;
  /** Pending waits (delays, stalls), ended early by `close()` so no timer outlives the server. */
  private readonly waits = new Set<() => void>();

  private constructor() {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(`replay server error: ${String(error)}`);
      });
    });
  }

  /** Start a server on 127.0.0.1 with an ephemeral port. */
  static async start(): Promise<ReplayServer> {
    return ReplayServer.unstarted().listen();
  }

  /** A server that does not listen yet: call {@link ReplayServer.listen} before using its `url`. */
  static unstarted(): ReplayServer {
    return new ReplayServer();
  }

  /** Listen on 127.0.0.1 with an ephemeral port. */
  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** `http://127.0.0.1:PORT` (no trailing slash). */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Queue responses, served first-in first-out to the next requests. */
  enqueue(...responses: ReplayResponse[]): this {
    this.queue.push(...responses);
    return this;
  }

  /** Answer every request with `handler` (queued responses still go first). */
  setHandler(handler: ReplayHandler | undefined): this {
    this.handler = handler;
    return this;
  }

  /** The last request received (throws when there is none). */
  get lastRequest(): RecordedRequest {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error("replay server: no request was received");
    return last;
  }

  /** Forget recorded requests, queued responses and the handler. */
  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
    this.handler = undefined;
  }

  /** Drop every open connection (keep-alive ones included); the server keeps listening. */
  closeConnections(): void {
    this.server.closeAllConnections();
  }

  /** Stop the server, dropping open connections and ending pending delays and stalls. */
  async close(): Promise<void> {
    for (const end of [...this.waits]) end();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers,
      body,
      json: () => JSON.parse(body) as unknown,
    };
    this.requests.push(recorded);
    const response = this.queue.shift() ?? (await this.handler?.(recorded));
    if (response === undefined) {
      res.writeHead(599, { "content-type": "text/plain" });
      res.end(`replay server: no response queued for ${recorded.method} ${recorded.path}`);
      return;
    }
    await this.serve(res, response);
  }

  private async serve(res: ServerResponse, response: ReplayResponse): Promise<void> {
    const wait = (ms: number) => this.wait(ms, res);
    if (response.headerDelayMs !== undefined) await wait(response.headerDelayMs);
    if (res.destroyed) return;
    const bytes =
      typeof response.body === "string"
        ? Buffer.from(response.body, "utf8")
        : Buffer.from(response.body ?? []);
    const cut = response.cutAfterBytes ?? response.stallAfterBytes;
    const sent = cut === undefined ? bytes : bytes.subarray(0, Math.max(0, cut));
    const headers = { ...response.headers };
    res.writeHead(response.status ?? 200, headers);
    res.flushHeaders();
    const parts = splitBody(sent, response.chunking ?? "whole");
    for (const part of parts) {
      if (res.destroyed) return;
      await new Promise<void>((resolve, reject) =>
        res.write(part, (error) => (error ? reject(error) : resolve())),
      );
      await wait(response.delayMs ?? 0);
    }
    if (response.stallAfterBytes !== undefined) {
      await wait(Number.POSITIVE_INFINITY);
      if (!res.destroyed) res.socket?.destroy();
      return;
    }
    if (cut !== undefined && cut < bytes.length && response.cutMode === "destroy") {
      res.socket?.destroy();
      return;
    }
    res.end();
  }

  /**
   * Wait `ms` (one event-loop turn for 0; forever for Infinity), ending early when the response's
   * connection closes or the server closes — so a client that gave up leaves no timer behind.
   */
  private wait(ms: number, res: ServerResponse): Promise<void> {
    if (ms <= 0) return new Promise((resolve) => setImmediate(resolve));
    return new Promise<void>((resolve) => {
      const end = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        res.off("close", end);
        this.waits.delete(end);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(end, ms) : undefined;
      res.once("close", end);
      this.waits.add(end);
    });
  }
}
