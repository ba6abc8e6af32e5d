import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeOtlpProtobuf } from "./otlp-decode.fixture.js";

// A local Langfuse stand-in for the exporter tests: records every request and answers with what
// the test says. Call `closeServers()` in `afterEach` (each test file must leave no socket open).

/** One request the stand-in received. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /**
   * The body as text. An OTLP protobuf body (`application/x-protobuf`) is decoded by the official
   * proto definitions (see otlp-decode.fixture.ts) into its OTLP/JSON form, ids in hex.
   */
  body: string;
  /** The raw bytes received. */
  bytes: Buffer;
}

/** What the stand-in answers. */
export interface Reply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

const servers: Server[] = [];

/** Start a server on 127.0.0.1 (random port) answering with `reply`. */
export async function serve(reply: (request: Received) => Reply) {
  const requests: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const bytes = Buffer.concat(chunks);
      const protobuf = req.headers["content-type"] === "application/x-protobuf";
      const received: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: protobuf ? JSON.stringify(decodeOtlpProtobuf(bytes)) : bytes.toString("utf8"),
        bytes,
      };
      requests.push(received);
      const answer = reply(received);
      if (answer.hang === true) return;
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body ?? "");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

/** A 207 answer acknowledging every envelope of the batch. */
export function acceptAll(request: Received): Reply {
  const batch = JSON.parse(request.body).batch as { id: string }[];
  return {
    status: 207,
    body: JSON.stringify({ successes: batch.map((e) => ({ id: e.id, status: 201 })), errors: [] }),
  };
}

/** Close every server started with `serve` (and their connections). */
export async function closeServers(): Promise<void> {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The names of the spans in OTLP/JSON request bodies, in order (for the OTLP exporter tests). */
export function spanNames(requests: readonly Received[]): string[] {
  return requests.flatMap((r) =>
    (JSON.parse(r.body).resourceSpans ?? []).flatMap((rs: { scopeSpans: { spans: { name: string }[] }[] }) =>
      rs.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)),
    ),
  );
}
