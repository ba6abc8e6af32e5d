/**
 * `tinyagents eval` with broken scorers, through the BUILT binary (issue 37 items 13 and 14):
 * a scorer that never settles, one that stalls with a live timer (stopped by SIGINT), and an
 * agent factory that never settles. Build first: `npm run build -w packages/harness -w packages/cli`.
 * Time budget: about 8 s (each case ends on its own bound or on the signal).
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const bin = join(root, "packages/cli/dist/bin.js");
const fixture = (name: string) => join(root, "packages/cli/test/fixtures/evals", name);

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tinyagents-eval-bin-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const env = () => ({ PATH: process.env.PATH ?? "", HOME: home, TINYAGENTS_HOME: home });

function tinyagents(args: string[], onStderr?: (text: string, child: ReturnType<typeof spawn>) => void) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: home,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      child.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString("utf8");
        onStderr?.(stderr, child);
      });
      child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
}

async function listed(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [bin, "eval", "--list"], { cwd: home, env: env() }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    ),
  );
}

describe("tinyagents eval with broken scorers (built binary)", () => {
  it("a scorer that never settles is a timeout scorer error: report printed, result saved, exit 1", async () => {
    const result = await tinyagents(["eval", fixture("stuck-scorer.eval.mjs")]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('scorer "stuck" did not settle within 300 ms');
    expect(result.stderr).toMatch(/eval eval-\S+ failed: 1 scorer error\(s\) \(stuck: 1\)/);
    expect(await listed()).toMatch(/stuck-scorer\s+completed\s+pass 0%\s+FAILED/);
  });

  it("Ctrl-C stops an eval whose scorer stalls with a live timer: exit 130, partial result saved", async () => {
    const started = Date.now();
    let sent = false;
    const result = await tinyagents(["eval", fixture("stalled-scorer.eval.mjs")], (stderr, child) => {
      if (!sent && stderr.includes("scorer started")) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    expect(sent).toBe(true);
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/eval eval-\S+ cancelled: 1 of 2 run\(s\) finished/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await listed()).toMatch(/stalled-scorer\s+cancelled/);
  });

  it("a command left pending when nothing can settle it exits 1 and says so, never 0", async () => {
    const result = await tinyagents(["eval", fixture("unsettled-agent.eval.mjs")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("tinyagents: stopped with the command unfinished");
  });
});
