import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { waitUntil } from "../../test/support/wait-until.js";
import { AgentHarness } from "../runtime/agent-harness.js";
import { lowerLayer } from "../runtime/lower-layer.js";
import { ToolRegistry } from "../tool/tool-registry.js";
import { loadMcpTools } from "./mcp-toolset.js";

/** A tiny MCP server made with the SDK (the reference servers cannot change their tool list on demand). */
function fixtureServer(): McpServer {
  const server = new McpServer({ name: "fixture", version: "1.0.0" });
  server.registerTool(
    "shout-text",
    { description: "Upper-case a text", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text: text.toUpperCase() }] }),
  );
  return server;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("MCP toolsets (SDK fixture server)", () => {
  it("follows tools/list_changed: new tools appear, removed ones go, the registry follows", async () => {
    const server = fixtureServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const mcp = await loadMcpTools({ name: "fixture", transport: clientSide });
    cleanups.push(async () => {
      await mcp.close();
      await server.close();
    });
    const registry = new ToolRegistry();
    const detach = mcp.attach(registry);
    expect(registry.names()).toEqual(["shout_text"]);

    const added = server.registerTool(
      "add-numbers",
      { inputSchema: { a: z.number(), b: z.number() } },
      async ({ a, b }) => ({
        content: [{ type: "text", text: String(a + b) }],
      }),
    );
    await waitUntil(() => registry.has("add_numbers"));
    expect(mcp.names.get("add_numbers")).toEqual({ server: "fixture", mcpName: "add-numbers" });

    added.remove();
    await waitUntil(() => !registry.has("add_numbers"));
    expect(registry.names()).toEqual(["shout_text"]);
    detach();
    expect(registry.names()).toEqual([]);
  });

  it("prefixes a name two servers share", async () => {
    const servers = [fixtureServer(), fixtureServer()];
    const transports = await Promise.all(
      servers.map(async (server, i) => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        return { name: i === 0 ? "alpha" : "beta", transport: clientSide };
      }),
    );
    const mcp = await loadMcpTools(transports);
    cleanups.push(async () => {
      await mcp.close();
      for (const server of servers) await server.close();
    });
    expect(mcp.tools.map((t) => t.name)).toEqual(["alpha_shout_text", "beta_shout_text"]);
  });

  it("connects over Streamable HTTP (loopback)", async () => {
    const server = fixtureServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
    await server.connect(transport);
    const http: Server = createServer((req, res) => {
      void transport.handleRequest(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    cleanups.push(async () => {
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const mcp = await loadMcpTools({ url });
    cleanups.push(() => mcp.close());
    expect(mcp.connections[0]?.name).toBe("fixture");
    const shout = mcp.tools[0];
    const run = lowerLayer(new AgentHarness()).createContext({}, undefined);
    const out = await shout?.execute(
      { text: "hi there" },
      { state: undefined, run, callId: "c", signal: run.signal, progress: () => {} },
    );
    expect(out).toEqual({
      kind: "tool_return",
      isError: false,
      content: [{ type: "text", text: "HI THERE" }],
    });
  });

  it("names the URL when an HTTP server is unreachable", async () => {
    const http = createServer();
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const port = (http.address() as AddressInfo).port;
    await new Promise((resolve) => http.close(resolve));
    await expect(loadMcpTools({ url: `http://127.0.0.1:${port}/mcp` })).rejects.toThrow(
      `could not connect to MCP server http://127.0.0.1:${port}/mcp`,
    );
  });
});
