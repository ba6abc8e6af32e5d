import { createConnection, createServer, type Server, type Socket } from "node:net";

/**
 * Close `socket` with a TCP RST when possible, so the peer sees the connection fail at once.
 * libuv refuses a reset once a shutdown (our FIN) was issued — Node then never closes the handle —
 * so a socket whose write side already ended is destroyed plainly instead.
 */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableEnded) socket.destroy();
  else socket.resetAndDestroy();
}

/** One upstream of a {@link TcpProxy}: a worker's loopback port, or `undefined` while it is down. */
export interface ProxyUpstream {
  port: number | undefined;
}

/** A running {@link startTcpProxy}. */
export interface TcpProxy {
  /** The stable port clients (Restate) connect to. */
  readonly port: number;
  /** Open client connections per upstream index (what each worker currently serves). */
  connections(): number[];
  /** Reset every connection relayed to upstream `index` (its worker died or is being killed). */
  drop(index: number): void;
  /** Stop accepting, reset every open connection, close the listening socket. */
  close(): Promise<void>;
}

/**
 * A loopback TCP load balancer: each accepted connection is relayed, bytes untouched, to the
 * next live upstream in round-robin order. It balances connections, not requests — Restate
 * multiplexes invocations as HTTP/2 streams over its connections, so start the server with a
 * low `streamsPerConnection` to make it open one connection per concurrent invocation.
 *
 * When an upstream dies, its relayed connections are reset (RST), so Restate sees the
 * invocation attempts on them fail at once and retries them; the retry opens a new connection
 * and lands on a surviving upstream. A connection whose upstream refuses (just died) is tried
 * on the next live upstream, since no byte of it was relayed yet.
 */
export async function startTcpProxy(upstreams: readonly ProxyUpstream[]): Promise<TcpProxy> {
  const open = new Map<Socket, { index: number; upstream: Socket | undefined }>();
  let next = 0;

  const pick = (tried: Set<number>): number | undefined => {
    for (let n = 0; n < upstreams.length; n++) {
      const index = (next + n) % upstreams.length;
      if (upstreams[index]?.port !== undefined && !tried.has(index)) {
        next = index + 1;
        return index;
      }
    }
    return undefined;
  };

  const relay = (client: Socket, tried: Set<number>) => {
    const index = pick(tried);
    const port = index === undefined ? undefined : upstreams[index]?.port;
    if (index === undefined || port === undefined) {
      reset(client);
      return;
    }
    tried.add(index);
    const upstream = createConnection({ host: "127.0.0.1", port, noDelay: true });
    open.set(client, { index, upstream });
    let connected = false;
    upstream.once("connect", () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on("error", () => {
      if (!connected && !client.destroyed) {
        relay(client, tried); // refused: nothing was sent yet, so another worker may take it
        return;
      }
      reset(client);
    });
    upstream.on("close", () => {
      if (connected && !client.destroyed) reset(client);
    });
  };

  const server: Server = createServer({ pauseOnConnect: true, noDelay: true }, (client) => {
    client.on("error", () => undefined);
    client.on("close", () => {
      open.get(client)?.upstream?.destroy();
      open.delete(client);
    });
    relay(client, new Set());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;

  return {
    port,
    connections: () => {
      const counts = upstreams.map(() => 0);
      for (const { index } of open.values()) counts[index] = (counts[index] ?? 0) + 1;
      return counts;
    },
    drop: (index) => {
      for (const [client, link] of open) {
        if (link.index !== index) continue;
        open.delete(client);
        link.upstream?.destroy();
        reset(client);
      }
    },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const [client, link] of open) {
        link.upstream?.destroy();
        reset(client);
      }
      await closed;
    },
  };
}
