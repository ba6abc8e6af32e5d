import { describe, expect, it } from "vitest";
import { assignToolNames } from "./mcp-names.js";
import { mapInputSchema, mapMcpResult } from "./mcp-result.js";
import { parseMcpServer, splitCommandLine } from "./mcp-server-spec.js";

describe("assignToolNames", () => {
  it("sanitizes names to snake_case and keeps the mapping", () => {
    const names = assignToolNames([{ server: "everything", tools: ["get-sum", "getWeather", "echo"] }]);
    expect([...names]).toEqual([
      ["get_sum", { server: "everything", mcpName: "get-sum" }],
      ["get_weather", { server: "everything", mcpName: "getWeather" }],
      ["echo", { server: "everything", mcpName: "echo" }],
    ]);
  });

  it("prefixes names offered by several servers, and only those", () => {
    const names = assignToolNames([
      { server: "files", tools: ["read_file", "list"] },
      { server: "mcp-servers/everything", tools: ["read-file", "echo"] },
    ]);
    expect([...names.keys()]).toEqual([
      "files_read_file",
      "list",
      "mcp_servers_everything_read_file",
      "echo",
    ]);
    expect(names.get("mcp_servers_everything_read_file")).toEqual({
      server: "mcp-servers/everything",
      mcpName: "read-file",
    });
  });

  it("can always prefix, and numbers clashes left after sanitizing", () => {
    expect([...assignToolNames([{ server: "s", tools: ["a"] }], "always").keys()]).toEqual(["s_a"]);
    expect([...assignToolNames([{ server: "s", tools: ["get-sum", "get_sum", "GetSum"] }]).keys()]).toEqual([
      "get_sum",
      "get_sum_2",
      "get_sum_3",
    ]);
    const long = "x".repeat(80);
    expect(
      [...assignToolNames([{ server: "s", tools: [long, `${long}-y`] }]).keys()].map((n) => n.length),
    ).toEqual([64, 64]);
  });
});

describe("mapMcpResult", () => {
  it("maps text, images, audio, resource links, embedded resources and errors", () => {
    const out = mapMcpResult({
      content: [
        { type: "text", text: "hi" },
        { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
        { type: "audio", data: "aGVsbG8=", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "mem://x", text: "embedded text" } },
        { type: "resource", resource: { uri: "mem://y", blob: "AAAA", mimeType: "application/gzip" } },
      ],
      isError: true,
    });
    expect(out).toEqual({
      kind: "tool_return",
      isError: true,
      content: [
        { type: "text", text: "hi" },
        { type: "image", source: { kind: "base64", data: "aGVsbG8=", mimeType: "image/png" } },
        { type: "text", text: "[audio audio/wav, 5 bytes, not shown]" },
        { type: "text", text: "[resource a.txt file:///a.txt (text/plain)]" },
        { type: "text", text: "embedded text" },
        { type: "text", text: "[embedded resource mem://y (application/gzip, 3 bytes) not shown]" },
      ],
    });
  });

  it("keeps structured content in raw and shows it when there is no text", () => {
    expect(
      mapMcpResult({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } }),
    ).toEqual({
      kind: "tool_return",
      isError: false,
      content: [{ type: "text", text: '{"a":1}' }],
      raw: { structuredContent: { a: 1 } },
    });
    expect(mapMcpResult({ content: [], structuredContent: { a: 1 } }).content).toEqual([
      { type: "json", value: { a: 1 } },
    ]);
  });

  it("makes schemas registry-safe", () => {
    expect(mapInputSchema({ $schema: "http://json-schema.org/draft-07/schema#", type: "object" })).toEqual({
      type: "object",
      properties: {},
    });
    expect(mapInputSchema(undefined)).toEqual({ type: "object", properties: {} });
  });
});

describe("parseMcpServer", () => {
  it("splits commands like a shell and recognises URLs", () => {
    expect(splitCommandLine(`npx -y "@scope/server x" 'a b' c\\ d ""`)).toEqual([
      "npx",
      "-y",
      "@scope/server x",
      "a b",
      "c d",
      "",
    ]);
    expect(parseMcpServer("node server.js --root /tmp")).toEqual({
      command: "node",
      args: ["server.js", "--root", "/tmp"],
    });
    expect(parseMcpServer("http://127.0.0.1:3000/mcp", "local")).toEqual({
      url: "http://127.0.0.1:3000/mcp",
      name: "local",
    });
    expect(() => parseMcpServer("  ")).toThrow("command is empty");
    expect(() => splitCommandLine(`node "x`)).toThrow("unbalanced");
  });
});
