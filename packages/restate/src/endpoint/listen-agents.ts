import { createServer, type Http2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { endpoint, type LoggerTransport } from "@restatedev/restate-sdk";
import type { RestateAgentServices } from "../services/restate-agents.js";

/** Options of {@link listenAgents}. */
export interface ListenAgentsOptions {
  /** Interface to listen on (default `127.0.0.1`: loopback only). */
  host?: string;
  /** Port (default 0: a free one, see `url`). */
  port?: number;
  /** Where the Restate SDK logs (default: the console; replays are marked and muted by the SDK). */
  logger?: LoggerTransport;
}

/** A running Restate endpoint: register `url` with the Restate admin API. */
export interface AgentEndpoint {
  /** `http://<host>:<port>` (HTTP/2 cleartext, what Restate connects to). */
  readonly url: string;
  readonly port: number;
  /** Stop listening and drop Restate's connections (in-flight attempts end; Restate retries them elsewhere). */
  close(): Promise<void>;
}

/**
 * Serve `services` (from `restateAgents`) as a Restate endpoint over HTTP/2 cleartext — what a
 * worker process runs. Unlike the SDK's `serve`, it binds to loopback unless told otherwise and
 * returns a handle that closes the server and its sessions.
 */
export async function listenAgents(
  services: RestateAgentServices,
  options: ListenAgentsOptions = {},
): Promise<AgentEndpoint> {
  const restate = endpoint();
  for (const service of services) restate.bind(service);
  if (options.logger !== undefined) restate.setLogger(options.logger);
  const server = createServer(restate.http2Handler());
  const sessions = new Set<Http2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const session of sessions) session.destroy();
      });
      return closing;
    },
  };
}
