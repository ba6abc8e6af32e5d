/**
 * The provider replay setup every adapter test file shares: one loopback {@link ReplayServer} per
 * test file, listening before its first test and closed after its last.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { ReplayServer } from "../replay/replay-server.js";

/**
 * One replay server for this test file: it listens from `beforeAll` on and is closed in
 * `afterAll`; unless `resetBeforeEach` is false, its recorded requests, queue and handler are
 * forgotten before each test. Use it inside tests and hooks (its `url` is known once it listens).
 */
export function useReplayServer(options: { resetBeforeEach?: boolean } = {}): ReplayServer {
  const server = ReplayServer.unstarted();
  beforeAll(async () => {
    await server.listen();
  });
  afterAll(() => server.close());
  if (options.resetBeforeEach ?? true) beforeEach(() => server.reset());
  return server;
}
