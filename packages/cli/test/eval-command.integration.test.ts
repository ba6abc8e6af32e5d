import { EventEmitter } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../src/main.js";
import { pressCtrlC, useCli } from "./support/cli.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const fixture = (name: string) => `packages/cli/test/fixtures/evals/${name}`;

const { cli, io } = useCli("tinyagents-eval-", { cwd: root });

describe("tinyagents eval", () => {
  it("runs the offline example: plain progress lines, the report table, every run journaled", async () => {
    const result = await cli(["eval", "examples/evals/travel.eval.ts"]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^eval eval-\S+: 6 run\(s\)\n/);
    expect(result.stderr).toMatch(/\[\d\/6\] FAIL weather-porto \(\d+ ms, eval-\S+-c6-r1\)/);
    expect(result.stdout).toMatch(
      /case\s+pass\s+contains\s+trajectory\s+limits\s+judge\s+p50\s+tokens\s+cost/,
    );
    expect(result.stdout).toMatch(/weather-porto\s+0\/1\s+0\.00\s+0\.00\s+1\.00\s+1\.00/);
    expect(result.stdout).toContain("pass rate 83.3% (5/6)");
    expect(result.stdout).toContain("ok   passRate >= 0.8");
    expect(result.stdout).toContain(
      'weather-porto trajectory: score 0: expected tool "get_weather" to be called with arguments matching {"city":"Porto"}; its 1 call(s) had: call-1: {"city":"Lisbon"}',
    );
    const runId = /tinyagents show (eval-\S+-c6-r1)/.exec(result.stdout)?.[1] as string;
    const show = await cli(["show", runId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("get_weather");
    const runs = await cli(["runs"]);
    expect(runs.stdout).toContain(runId);
    const list = await cli(["eval", "--list"]);
    expect(list.stdout).toMatch(/eval-\S+ {2}travel-assistant {2}completed {2}pass 83\.3% {2}ok/);
  });

  it("draws a progress bar on a terminal", async () => {
    const result = await cli(["eval", fixture("capitals-v1.eval.ts")], { stderrIsTTY: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("\r[########################] 3/3  pass 3  fail 0\n");
  });

  it("--json, then --baseline: regressions per case and scorer; --fail-on-regression exits 1", async () => {
    const first = await cli(["eval", fixture("capitals-v1.eval.ts"), "--json"]);
    expect(first.code).toBe(0);
    const baseline = JSON.parse(first.stdout);
    expect(baseline).toMatchObject({ status: "completed", passed: true, report: { passRate: 1 } });
    const second = await cli(["eval", fixture("capitals-v2.eval.ts"), "--baseline", baseline.evalRunId]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`compared with ${baseline.evalRunId}:`);
    expect(second.stdout).toMatch(
      /REGRESSIONS:\n {4}italy pass rate: 1\.00 -> 0\.00 \(-1\.00\)\n {4}italy exact: 1\.00 -> 0\.00 \(-1\.00\)/,
    );
    const gated = await cli([
      "eval",
      fixture("capitals-v2.eval.ts"),
      "--baseline",
      baseline.evalRunId,
      "--fail-on-regression",
      "--json",
    ]);
    expect(gated.code).toBe(1);
    expect(JSON.parse(gated.stdout).comparison.regressions).toHaveLength(2);
    expect(gated.stderr).toContain(
      `regressed against ${baseline.evalRunId}: 2 case/scorer figure(s) dropped`,
    );
    const missing = await cli(["eval", fixture("capitals-v2.eval.ts"), "--baseline", "eval-nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no eval run "eval-nope" in the store');
  });

  it("exits 1 when a threshold fails, naming it", async () => {
    const result = await cli(["eval", fixture("capitals-strict.eval.ts")]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("FAIL passRate >= 1 (got 0.666667)");
    expect(result.stderr).toMatch(/eval eval-\S+ failed: passRate >= 1, scorer:exact >= 0\.9/);
  });

  it("--repeats shows confidence intervals", async () => {
    const result = await cli(["eval", fixture("capitals-v2.eval.ts"), "--repeats", "3"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/exact\s+0\.67\s+\[0\.28, 1\.00\]\s+6\/9/);
    expect(result.stdout).toMatch(/italy\s+0\/3/);
  });

  it("Ctrl-C cancels the eval: exit 130 with the partial result saved", async () => {
    const signals = new EventEmitter();
    const { io: evalIo, out } = io({ signals });
    const running = main(["eval", fixture("capitals-slow.eval.ts")], evalIo);
    await pressCtrlC(signals);
    const result = { code: await running, stderr: out.stderr };
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/eval (eval-\S+) cancelled: 0 of 3 run\(s\) finished/);
    const id = /eval (eval-\S+) cancelled/.exec(result.stderr)?.[1];
    const list = await cli(["eval", "--list"]);
    expect(list.stdout).toContain(`${id}  capitals  cancelled  pass -  FAILED`);
  });

  it("bad eval files and flags: usage (2) and configuration (3) errors that say what is wrong", async () => {
    expect(await cli(["eval"])).toMatchObject({ code: 2 });
    expect((await cli(["eval", "nope.eval.ts"])).stderr).toContain("does not exist");
    const noDefault = await cli(["eval", fixture("no-default.eval.ts")]);
    expect(noDefault.code).toBe(3);
    expect(noDefault.stderr).toContain("has no default export");
    const badDataset = await cli(["eval", fixture("bad-dataset.eval.ts")]);
    expect(badDataset.code).toBe(3);
    expect(badDataset.stderr).toContain('case 2 "broken" line 2: field "expectd" is not a case field');
    expect((await cli(["eval", fixture("capitals-v1.eval.ts"), "--repeats", "0"])).code).toBe(2);
    expect((await cli(["eval", fixture("capitals-v1.eval.ts"), "--tolerance", "3"])).code).toBe(2);
    expect((await cli(["eval", "--help"])).stdout).toContain("tinyagents eval <file> [options]");
  });

  it("--langfuse pushes the eval as a Langfuse dataset run (env credentials), and names missing variables", async () => {
    const requests: { path: string; body: string }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        requests.push({ path: req.url ?? "", body });
        if (req.url === "/api/public/ingestion") {
          const batch = JSON.parse(body).batch as { id: string }[];
          res.writeHead(207, { "content-type": "application/json" });
          res.end(JSON.stringify({ successes: batch.map((e) => ({ id: e.id, status: 201 })), errors: [] }));
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const env = {
        LANGFUSE_BASE_URL: `http://127.0.0.1:${port}`,
        LANGFUSE_PUBLIC_KEY: "pk-lf-cli",
        LANGFUSE_SECRET_KEY: "sk-lf-cli-secret",
      };
      const result = await cli(["eval", fixture("capitals-v1.eval.ts"), "--langfuse", "--json"], { env });
      expect(result.code).toBe(0);
      const output = JSON.parse(result.stdout);
      expect(output.langfuse).toMatchObject({ items: 3, traces: 3, runItems: 3, errors: [] });
      expect(output.langfuse.runName).toBe(output.evalRunId);
      expect(result.stderr).toMatch(/langfuse: dataset "\S+", run "eval-\S+": 3 item\(s\), 3 trace\(s\)/);
      const paths = new Set(requests.map((r) => r.path));
      expect([...paths].sort()).toEqual([
        "/api/public/dataset-items",
        "/api/public/dataset-run-items",
        "/api/public/ingestion",
        "/api/public/otel/v1/traces",
        "/api/public/v2/datasets",
      ]);
      expect(result.stdout + result.stderr).not.toContain("sk-lf-cli-secret");

      const missing = await cli(["eval", fixture("capitals-v1.eval.ts"), "--langfuse"], {
        env: { LANGFUSE_BASE_URL: env.LANGFUSE_BASE_URL },
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(
        "--langfuse: Langfuse is not configured: missing LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY",
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
