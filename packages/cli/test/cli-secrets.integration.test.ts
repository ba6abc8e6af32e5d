/**
 * Every artifact the CLI prints or writes goes through the journal's redaction (issue 35), tried
 * against a hostile loopback provider that echoes every request header and URL back as the
 * answer: `run` (plain and `--json`), `show`, `runs --json`, `eval --json`, the eval report, and
 * the whole SQLite store on disk (journal, run list, stored eval records) contain none of the API
 * key, the custom credential header or the `?key=` query value. Also: `runs --json | head -1`
 * (the reader closing the pipe) exits 0 without an EPIPE stack trace.
 *
 * Integration tier: a loopback HTTP server, the CLI in process, and the built binary spawned
 * once (needs `npm run build -w packages/cli`). Budget: ~5 s.
 */
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useCli } from "./support/cli.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const bin = join(root, "packages/cli/dist/bin.js");
const API_KEY = "sk-echo-apikey-3b4c5d6e7f8a";
const HEADER_SECRET = "gw-echo-header-8e7d6c5b4a";
const QUERY_SECRET = "echo-query-1f2e3d4c5b";
const SECRETS = [API_KEY, HEADER_SECRET, QUERY_SECRET];

const { cli, home } = useCli("tinyagents-secrets-", {
  cwd: root,
  env: { ECHO_KEY: API_KEY },
  signals: new EventEmitter(), // never the process's own SIGINT
});
let server: Server;
let baseUrl: string;

/** An OpenAI-compatible server whose answer is the request's URL and headers, verbatim. */
function echoServer(): Server {
  return createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const echo = `url=${request.url ?? ""} headers=${JSON.stringify(request.headers)}`;
      const streaming = (JSON.parse(body || "{}") as { stream?: boolean }).stream === true;
      const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };
      if (!streaming) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            id: "c1",
            object: "chat.completion",
            model: "echo-model",
            choices: [{ index: 0, message: { role: "assistant", content: echo }, finish_reason: "stop" }],
            usage,
          }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (data: unknown) => response.write(`data: ${JSON.stringify(data)}\n\n`);
      chunk({
        id: "c1",
        model: "echo-model",
        choices: [{ index: 0, delta: { role: "assistant", content: echo } }],
      });
      chunk({ id: "c1", model: "echo-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
      chunk({ id: "c1", model: "echo-model", choices: [], usage });
      response.end("data: [DONE]\n\n");
    });
  });
}

beforeAll(async () => {
  server = echoServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1?key=${QUERY_SECRET}`;
  // Read by the eval fixture (it builds its own model from these).
  process.env.ECHO_BASE_URL = baseUrl;
  process.env.ECHO_API_KEY = API_KEY;
  process.env.ECHO_HEADER_KEY = HEADER_SECRET;
});
afterAll(async () => {
  delete process.env.ECHO_BASE_URL;
  delete process.env.ECHO_API_KEY;
  delete process.env.ECHO_HEADER_KEY;
  await new Promise((resolve) => server.close(resolve));
});

function expectNoSecrets(text: string, where: string): void {
  for (const secret of SECRETS) expect(text, `${where} leaks ${secret}`).not.toContain(secret);
}

/** Every file of the store (database, WAL), as text. */
function storeOnDisk(): string {
  const files = readdirSync(home(), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
  return files.map((f) => readFileSync(join(f.parentPath, f.name)).toString("latin1")).join("\n");
}

describe("the CLI never prints or stores a provider credential", () => {
  it("run, run --json, show, runs --json, eval --json, the eval report and the store on disk", async () => {
    const flags = ["--base-url", baseUrl, "--model", "echo-model", "--api-key-env", "ECHO_KEY"];
    const plain = await cli(["run", "echo everything", ...flags]);
    expect(plain.code, plain.all).toBe(0);
    // The echo reached the answer (so the test is not vacuous), masked.
    expect(plain.stdout).toContain("url=/v1/chat/completions?");
    expect(plain.stdout).toContain("[REDACTED]");
    expect(plain.stderr).toContain("using compatible:echo-model at http://127.0.0.1:");
    expectNoSecrets(plain.all, "run");

    const json = await cli(["run", "echo again", ...flags, "--json"]);
    expect(json.code, json.all).toBe(0);
    expectNoSecrets(json.all, "run --json");
    const runId = (JSON.parse(json.stdout) as { runId: string }).runId;

    expectNoSecrets((await cli(["show", runId])).all, "show");
    expectNoSecrets((await cli(["runs", "--json"])).all, "runs --json");

    const evalJson = await cli(["eval", "packages/cli/test/fixtures/evals/echo-secrets.eval.ts", "--json"]);
    expect(evalJson.code, evalJson.all).toBe(0);
    expect(evalJson.stdout).toContain("headers=");
    expectNoSecrets(evalJson.all, "eval --json");
    const report = await cli(["eval", "packages/cli/test/fixtures/evals/echo-secrets.eval.ts"]);
    expectNoSecrets(report.all, "eval report");

    expectNoSecrets(storeOnDisk(), "the store on disk (journal, runs, eval records)");
  });

  it("runs --json | head -1: the closed pipe ends the command quietly, exit 0", async () => {
    const child = spawn(process.execPath, [bin, "runs", "--json"], {
      env: { PATH: process.env.PATH ?? "", HOME: home(), TINYAGENTS_HOME: home() },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The reader goes away before the command writes (what `head -1` does after its line).
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    expect(stderr).not.toContain("EPIPE");
    expect(stderr).not.toMatch(/at \S+ \(/); // no stack trace
    expect(code).toBe(0);
  });
});
