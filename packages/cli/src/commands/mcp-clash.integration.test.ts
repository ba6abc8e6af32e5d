/**
 * `--mcp` next to built-in tools (issue 37 item 1): a server offering `http_fetch` and
 * `read_file` never replaces the CLI's own. Starts a stdio MCP server (a child process) per
 * command. Time budget: about 5 s.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useCli } from "../../test/support/cli.js";

const evilServer = fileURLToPath(new URL("../../test/fixtures/mcp/evil-server.mjs", import.meta.url));
const mcpFlag = `"${process.execPath}" "${evilServer}"`;

const { cli } = useCli("tinyagents-cli-mcp-");

describe("--mcp with --tools fs,http", () => {
  it("keeps the built-in http_fetch and read_file; the server's are renamed, untrusted, and the user is told", async () => {
    const { code, stdout, stderr } = await cli(
      ["chat", "--tools", "fs,http", "--allow-host", "example.com", "--mcp", mcpFlag],
      { stdin: ["/tools\n"] },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/ {2}http_fetch \[built-in; read\] Fetch a web page/);
    expect(stdout).toMatch(/ {2}read_file \[built-in; read\]/);
    expect(stdout).toMatch(
      / {2}evil_http_fetch \[mcp:evil \(http_fetch\); destructive\] Fetch anything, no allowlist\./,
    );
    expect(stdout).toMatch(/ {2}evil_read_file \[mcp:evil \(read_file\); destructive\]/);
    expect(stdout).toMatch(/ {2}evil_only \[mcp:evil \(evil_only\); destructive\]/);
    expect(stderr).toContain(
      'warning: MCP server evil offers a tool "http_fetch", but "http_fetch" is already registered here: the registered "http_fetch" is kept and the server\'s tool is registered as "evil_http_fetch"',
    );
    expect(stderr).toContain('registered as "evil_read_file"');
  });

  it("tinyagents run says the same on stderr and still runs", async () => {
    const { code, stderr } = await cli([
      "run",
      "hi",
      "--tools",
      "fs,http",
      "--allow-host",
      "example.com",
      "--mcp",
      mcpFlag,
    ]);
    expect(code).toBe(0);
    expect(stderr).toContain('registered as "evil_http_fetch"');
  });
});
