/**
 * Hostile MCP servers over real transports (issue 37 item 5, and the stdio half of item 4):
 * loopback HTTP servers and stdio child processes that send more than any bound allows. Small
 * limits (64 KiB) against servers that would write forever prove the bound without GiBs.
 * Time budget: about 3 s in all (each case ends as soon as the bound is crossed).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { loadMcpTools } from "./mcp-toolset.js";

const LIMIT = 64 * 1024;
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

type ListBehaviour = (res: ServerResponse) => void;

/** A minimal Streamable HTTP MCP server: initialize answers normally, tools/list as `list` says. */
async function rawHttpServer(list: ListBehaviour, init?: ListBehaviour): Promise<string> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const message = JSON.parse(body) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string };
      };
      if (message.id === undefined) {
        res.writeHead(202).end();
      } else if (message.method === "initialize") {
        if (init !== undefined) return init(res);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: message.params?.protocolVersion,
              capabilities: { tools: {} },
              serverInfo: { name: "raw", version: "1" },
            },
          }),
        );
      } else {
        list(res);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** Write `chunk` until the client goes away (a server that would send a GiB and more). */
function writeForever(res: ServerResponse, chunk: string): void {
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once("drain", pump);
  };
  res.on("close", () => res.removeAllListeners("drain"));
  pump();
}

const filler = "x".repeat(16 * 1024);

describe("MCP messages are bounded over Streamable HTTP", () => {
  it("refuses an endless JSON response once it passes maxMessageBytes", async () => {
    const url = await rawHttpServer((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"jsonrpc":"2.0","id":1,"result":{"tools":[],"pad":"');
      writeForever(res, filler);
    });
    await expect(loadMcpTools({ name: "raw-json", url }, { maxMessageBytes: LIMIT })).rejects.toMatchObject({
      code: "limit_exceeded",
      details: { server: "raw-json", limit: "maxMessageBytes", value: LIMIT },
      message: expect.stringContaining("MCP server raw-json sent an HTTP response larger than 65536 bytes"),
    });
  });

  it("refuses a declared 1 GiB Content-Length before reading the body", async () => {
    const url = await rawHttpServer((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(2 ** 30) });
      res.write("{"); // and then nothing: only the header can end this quickly
    });
    await expect(
      loadMcpTools({ name: "raw-declared", url }, { maxMessageBytes: LIMIT }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("sent a 1073741824-byte HTTP response larger than 65536 bytes"),
    });
  });

  it("refuses an SSE event that never ends, and allows many events that are each small", async () => {
    const endless = await rawHttpServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: ");
      writeForever(res, filler);
    });
    await expect(
      loadMcpTools({ name: "raw-sse", url: endless }, { maxMessageBytes: LIMIT }),
    ).rejects.toMatchObject({
      code: "limit_exceeded",
      message: expect.stringContaining("MCP server raw-sse sent an SSE event larger than 65536 bytes"),
    });

    // 8 comment events of 16 KiB (128 KiB in all), then the result: each event is under the bound.
    const chatty = await rawHttpServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (let i = 0; i < 8; i++) res.write(`: ${filler}\n\n`);
      const tool = { name: "echo", inputSchema: { type: "object" } };
      res.end(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: [tool] } })}\n\n`,
      );
    });
    const mcp = await loadMcpTools({ name: "raw-chatty", url: chatty }, { maxMessageBytes: LIMIT });
    expect(mcp.tools.map((t) => t.name)).toEqual(["echo"]);
    await mcp.close();
  });

  it("a handshake that never answers ends at connectTimeoutMs with a timeout error", async () => {
    const url = await rawHttpServer(
      () => {},
      () => {}, // initialize: no answer, ever
    );
    await expect(loadMcpTools({ name: "raw-mute", url }, { connectTimeoutMs: 200 })).rejects.toMatchObject({
      code: "timeout",
      details: { server: "raw-mute", limit: "connectTimeoutMs", value: 200 },
    });
  });
});

/** A stdio MCP server (plain Node, no SDK) that answers initialize, then writes one endless line. */
const ENDLESS_STDIO = `
const readline = require("node:readline");
const filler = "x".repeat(16 * 1024);
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {
      protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "endless", version: "1" } } }) + "\\n");
  } else if (m.method === "tools/list") {
    process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"tools":[],"pad":"');
    const pump = () => { while (process.stdout.write(filler)); process.stdout.once("drain", pump); };
    process.stdout.on("error", () => process.exit(0));
    pump();
  }
});
`;

describe("MCP messages are bounded over stdio", () => {
  it("refuses an endless stdout line once it passes maxMessageBytes", async () => {
    const error = await loadMcpTools(
      { name: "endless", command: process.execPath, args: ["-e", ENDLESS_STDIO] },
      { maxMessageBytes: LIMIT },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "limit_exceeded",
      details: { server: "endless", limit: "maxMessageBytes", value: LIMIT },
      message: expect.stringContaining("MCP server endless sent a stdio message larger than 65536 bytes"),
    });
  });
});
