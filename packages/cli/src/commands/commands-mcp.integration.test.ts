/**
 * `--mcp` in the CLI: an MCP server is a child process started over stdio (the reference
 * server-everything from the devDependencies), so these run in the integration tier.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";

const { cli } = useCli("tinyagents-cli-mcp-");

describe("MCP tools in the CLI", () => {
  const server = createRequire(import.meta.url).resolve(
    "@modelcontextprotocol/server-everything/dist/index.js",
  );

  it("loads an MCP server's tools with --mcp and lists them with their origin", async () => {
    const { code, stdout } = await cli(["chat", "--mcp", `"${process.execPath}" "${server}"`], {
      stdin: ["/tools\n"],
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/get_sum \[mcp:mcp-servers\/everything \(get-sum\); destructive\]/);
  });

  it("exits 4 with the command when an MCP server cannot start", async () => {
    const { code, stderr } = await cli(["run", "hi", "--mcp", "no-such-mcp-server-binary --flag"]);
    expect(code).toBe(4);
    expect(stderr).toContain("no-such-mcp-server-binary");
  });
});
