import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// These tests run the BUILT binary (`npm test` builds before Vitest), as a user would.
const root = fileURLToPath(new URL("../../..", import.meta.url));
const bin = join(root, "packages/cli/dist/bin.js");
const run = promisify(execFile);

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tinyagents-bin-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** No API keys, no model, no local server (port 1 refuses): the demo model, a temp store. */
const env = () => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  TINYAGENTS_HOME: home,
  OLLAMA_HOST: "127.0.0.1:1",
  TINYAGENTS_DEMO_DELAY_MS: "0",
});

async function tinyagents(args: string[], input?: string) {
  const child = execFile(process.execPath, [bin, ...args], { cwd: home, env: env(), encoding: "utf8" });
  if (input !== undefined) child.stdin?.end(input);
  else child.stdin?.end();
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: string) => (stdout += c));
    child.stderr?.on("data", (c: string) => (stderr += c));
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("the tinyagents binary (built)", () => {
  it('run "what time is it in Tokyo?" --tools time works offline, and show renders its timeline', async () => {
    const result = await tinyagents(["run", "what time is it in Tokyo?", "--tools", "time"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("using the offline demo model");
    expect(result.stdout).toMatch(/-> current_time\(\{"timezone":"Asia\/Tokyo"\}\) ok in \d+ ms/);
    expect(result.stdout).toMatch(/In Asia\/Tokyo it is \d\d:\d\d/);
    const runId = /run id: (run-\S+)/.exec(result.stdout)?.[1] as string;
    const show = await tinyagents(["show", runId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/tool current_time \{"timezone":"Asia\/Tokyo"\} · ok/);
    expect(show.stdout).toMatch(/run completed · 2 model calls · 1 tool call/);
  });

  it("chat with piped stdin: two turns on a thread that persists", async () => {
    const first = await tinyagents(
      ["chat", "--thread", "bin-thread", "--tools", "time,calc"],
      "what time is it in Tokyo?\nwhat is 6 * 7?\n",
    );
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/In Asia\/Tokyo it is/);
    expect(first.stdout).toContain("6 * 7 = 42");
    const later = await tinyagents(["chat", "--thread", "bin-thread"], "hello\n");
    expect(later.stdout).toContain("thread bin-thread (");
    expect(later.stdout).toContain('your previous message was "what is 6 * 7?"');
    const runs = await tinyagents(["runs", "--thread", "bin-thread"]);
    expect(runs.stdout.trim().split("\n")).toHaveLength(3);
  });

  it("Ctrl-C cancels the current chat turn without losing the thread", async () => {
    const child: ChildProcess = spawn(
      process.execPath,
      [bin, "chat", "--thread", "sigint-thread", "--tools", "time"],
      {
        cwd: home,
        env: { ...env(), TINYAGENTS_DEMO_DELAY_MS: "100" },
      },
    );
    let stdout = "";
    const seen = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${JSON.stringify(text)} in:\n${stdout}`)),
          15_000,
        );
        const check = () => {
          if (stdout.includes(text)) {
            clearTimeout(timer);
            child.stdout?.off("data", check);
            resolve();
          }
        };
        child.stdout?.on("data", check);
        check();
      });
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    const closed = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
    child.stdin?.write("what time is it in Tokyo?\n");
    await seen("-> current_time");
    child.kill("SIGINT");
    await seen("(turn cancelled; the thread keeps everything before it)");
    child.stdin?.write("what time is it in Tokyo?\n");
    await seen("In Asia/Tokyo it is");
    child.stdin?.end("/exit\n");
    expect(await closed).toBe(0);
  });

  it("--help works for every command and bad input exits 2", async () => {
    const { stdout } = await run(process.execPath, [bin, "--help"], { env: env() });
    expect(stdout).toContain("Exit codes:");
    await expect(run(process.execPath, [bin, "nope"], { env: env() })).rejects.toMatchObject({ code: 2 });
  });

  it("the `tinyagents` bin is a committed executable shim (npm links it before any build)", async () => {
    const manifest = JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8"));
    const shim = join(root, "packages/cli", manifest.bin.tinyagents);
    // Mode 100755 in git: a fresh clone has it executable, whatever the build later writes.
    const { stdout: staged } = await run("git", ["ls-files", "-s", manifest.bin.tinyagents], {
      cwd: join(root, "packages/cli"),
    });
    expect(staged).toMatch(/^100755 /);
    expect(statSync(shim).mode & 0o111).toBe(0o111);
    // Executed directly (its shebang), as node_modules/.bin/tinyagents is.
    const { stdout } = await run(shim, ["--version"], { env: env() });
    expect(stdout).toBe(`tinyagents ${manifest.version} (Node.js ${process.versions.node})\n`);
  });
});
