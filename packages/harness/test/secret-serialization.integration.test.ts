/**
 * MCP clients never print their credentials (issue 35): a client started with credentials in its
 * arguments and environment, a failing server that prints its whole command line and environment,
 * a command that does not exist. None of `JSON.stringify`, `util.inspect`, `String(err)` or the
 * `err.cause` chain shows a credential (Postgres: packages/postgres/test/postgres-secrets).
 * Integration tier: spawns stdio MCP servers. Budget: ~3 s.
 */

import { fileURLToPath } from "node:url";
import { loadMcpTools } from "@tinyagents/harness/mcp";
import { describe, expect, it } from "vitest";
import { expectNoSecrets as expectNoneOf, printed, printedError } from "./support/printed-secrets.js";

const server = fileURLToPath(new URL("./fixtures/mcp-args-server.mjs", import.meta.url));
const ARG_SECRET = "arg-secret-7c6b5a4d3e";
const FLAG_SECRET = "flag-secret-2f1e0d9c8b";
const ENV_SECRET = "env-secret-9a8b7c6d5e";
const SECRETS = [ARG_SECRET, FLAG_SECRET, ENV_SECRET];

const expectNoSecrets = (text: string) => expectNoneOf(text, SECRETS);

const spec = (extra: string[] = []) => ({
  command: process.execPath,
  args: [server, `--api-key=${ARG_SECRET}`, "--token", FLAG_SECRET, ...extra],
  env: { MY_SERVICE_KEY: ENV_SECRET, PATH: process.env.PATH ?? "" },
});

describe("MCP clients never print their credentials", () => {
  it("a connected toolset and its connections: JSON.stringify, inspect, String", async () => {
    const mcp = await loadMcpTools(spec());
    try {
      expect(mcp.tools.map((t) => t.name)).toContain("ping");
      expectNoSecrets(printed(mcp));
      for (const connection of mcp.connections) {
        expectNoSecrets(printed(connection));
        expect(JSON.stringify(connection)).toContain("--api-key=REDACTED");
      }
    } finally {
      await mcp.close();
    }
  });

  it("a failing start: the error, its stderr tail and its cause chain are credential-free", async () => {
    const error = await loadMcpTools(spec(["--fail"])).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeDefined();
    const text = printedError(error);
    expectNoSecrets(text);
    // The message still says which server failed and what it wrote.
    expect(String(error)).toContain("mcp-args-server.mjs");
  });

  it("a command that does not exist: no credential in the error or its cause", async () => {
    const error = await loadMcpTools({ ...spec(), command: "definitely-not-a-command-xyz" }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expectNoSecrets(printedError(error));
    expect(String(error)).toContain("was not found");
  });
});
