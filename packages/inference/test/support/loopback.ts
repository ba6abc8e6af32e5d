/** Loopback network helpers for the integration tier's network-fault tests. */
import { createServer } from "node:net";

/** A loopback port nobody listens on: bind an ephemeral port, then release it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Wait `ms` of REAL time: only for tests that exist to prove a real timer fires. */
export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
