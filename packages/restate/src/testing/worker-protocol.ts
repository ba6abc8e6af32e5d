import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { createServer } from "node:http2";

/** The line a pool worker prints on stdout once its endpoint listens: `<WORKER_READY> <port>`. */
export const WORKER_READY = "TINYAGENTS_WORKER_READY";

/** What `serveWorker` returns: the port, and `close()` for a graceful stop. */
export interface ServedWorker {
  port: number;
  close(): Promise<void>;
}

/**
 * For a worker script of {@link startWorkerPool}: serve `handler` (a Restate endpoint's HTTP/2
 * handler, e.g. `restate.createEndpointHandler({ services })`) over cleartext HTTP/2 on a free
 * 127.0.0.1 port (or `port`), then print the ready line the pool waits for.
 */
export async function serveWorker(
  handler: (request: Http2ServerRequest, response: Http2ServerResponse) => void,
  port = 0,
): Promise<ServedWorker> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  process.stdout.write(`${WORKER_READY} ${bound}\n`);
  return { port: bound, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
