/**
 * The test infrastructure itself, against a real restate-server from node_modules: the launcher
 * (loopback ports, temp base dir, cleanup), binary resolution errors, and the worker pool's
 * proxy (connections spread over workers; a SIGKILLed worker's invocation finishes on another).
 * Skipped only with TINYAGENTS_SKIP_RESTATE=1.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { TinyAgentsError } from "@tinyagents/inference";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loopbackRequest } from "./loopback-http.js";
import { resolveRestateServerBinary } from "./resolve-binary.js";
import { type RestateServer, startRestateServer } from "./restate-server.js";
import { startWorkerPool, type WorkerPool } from "./worker-pool.js";

const SKIP = process.env.TINYAGENTS_SKIP_RESTATE === "1";
if (SKIP)
  console.warn(
    "TINYAGENTS_SKIP_RESTATE=1: skipping the Restate worker-pool tests (restate-server not started)",
  );
const worker = fileURLToPath(new URL("./fixtures/echo-worker.fixture.ts", import.meta.url));

describe("resolveRestateServerBinary", () => {
  it("finds the platform binary of @restatedev/restate-server in node_modules", () => {
    expect(resolveRestateServerBinary()).toMatch(
      /@restatedev[/\\]restate-server-[a-z0-9]+-[a-z0-9]+[/\\]bin[/\\]restate-server$/,
    );
  });

  it("says what to install when the package cannot be resolved", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tinyagents-no-restate-"));
    try {
      const from = pathToFileURL(join(dir, "x.js")).href;
      const error = (() => {
        try {
          resolveRestateServerBinary(from);
        } catch (e) {
          return e;
        }
      })();
      expect(TinyAgentsError.isInstance(error, "validation")).toBe(true);
      expect((error as Error).message).toContain("npm install -D @restatedev/restate-server");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(SKIP)("startRestateServer + startWorkerPool (real restate-server)", () => {
  let server: RestateServer;
  let pool: WorkerPool;
  let holdDir: string;
  const lines: { event: string; key: string; worker: number }[] = [];
  const waiters: (() => void)[] = [];

  beforeAll(async () => {
    holdDir = await mkdtemp(join(tmpdir(), "tinyagents-hold-"));
    server = await startRestateServer({ streamsPerConnection: 1, retryInitialIntervalMs: 100 });
    pool = await startWorkerPool({
      script: worker,
      execArgv: ["--import", "tsx"],
      workers: 3,
      env: { HOLD_FILE: join(holdDir, "held") },
      onLine: (line, index) => {
        const match = /^(entered|holding) (\S+) /.exec(line);
        if (match?.[1] === undefined || match[2] === undefined) return;
        lines.push({ event: match[1], key: match[2], worker: index });
        for (const wake of waiters.splice(0)) wake();
      },
    });
    await server.registerDeployment(pool.url);
  }, 60_000);

  afterAll(async () => {
    await pool?.stop();
    await server?.stop();
    await rm(holdDir, { recursive: true, force: true });
  });

  const call = async (key: string, extra: Record<string, unknown> = {}) => {
    const res = await loopbackRequest(
      "POST",
      `${server.ingressUrl}/echo/work`,
      { key, ...extra },
      { timeoutMs: 30_000 },
    );
    expect(res.status).toBe(200);
    return JSON.parse(res.body) as { key: string; ranOn: string; finishedOn: string };
  };

  const heldBy = async (key: string) => {
    for (;;) {
      const hit = lines.find((e) => e.event === "holding" && e.key === key);
      if (hit !== undefined) return hit.worker;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };

  it("binds ingress and admin to 127.0.0.1 and answers the SQL introspection API", async () => {
    expect(server.ingressUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(existsSync(server.baseDir)).toBe(true);
    const rows = await server.query<{ n: number }>("SELECT count(*) AS n FROM sys_deployment");
    expect(rows[0]?.n).toBe(1);
  });

  it("spreads concurrent invocations over the workers behind the one registered URL", async () => {
    const results = await Promise.all(Array.from({ length: 9 }, (_, i) => call(`spread-${i}`)));
    expect(results.map((r) => r.key)).toEqual(Array.from({ length: 9 }, (_, i) => `spread-${i}`));
    expect(new Set(results.map((r) => r.ranOn)).size).toBeGreaterThanOrEqual(2);
  });

  it("finishes an invocation on a survivor when its worker is SIGKILLed inside a step", async () => {
    const result = call("held", { hold: true });
    const victim = await heldBy("held");
    await pool.kill(victim, "SIGKILL");
    expect(pool.workers()[victim]?.alive).toBe(false);
    expect(pool.connections()[victim]).toBe(0);
    const done = await result;
    expect(done.ranOn).not.toBe(String(victim));
    expect(done.finishedOn).not.toBe(String(victim));
    const entries = lines.filter((e) => e.event === "entered" && e.key === "held");
    expect(entries.map((e) => e.worker)).toEqual([victim, Number(done.ranOn)]);
  });

  it("restarts a killed worker and adds new ones", async () => {
    const dead = pool.workers().find((w) => !w.alive);
    expect(dead).toBeDefined();
    await pool.restart(dead?.index ?? 0);
    expect(pool.workers().every((w) => w.alive)).toBe(true);
    const added = await pool.add();
    expect(added).toBe(3);
    expect(pool.workers()[added]?.port).toBeGreaterThan(0);
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => call(`after-${i}`)));
    expect(results).toHaveLength(8);
  });

  it("stop() kills the server and deletes its temp base dir", async () => {
    const other = await startRestateServer();
    expect(other.startupMs).toBeGreaterThan(0);
    await other.stop();
    expect(existsSync(other.baseDir)).toBe(false);
    expect(() => process.kill(other.pid, 0)).toThrow();
  });
});
