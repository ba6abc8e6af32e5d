import { createServer } from "node:net";

/**
 * A TCP port that is free on 127.0.0.1 right now: the OS picks it (bind to port 0), we close the
 * socket and hand the number on. Another process could take it in between; callers that pass it
 * to a child (the Restate server) retry with a fresh port when the child fails to bind.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
