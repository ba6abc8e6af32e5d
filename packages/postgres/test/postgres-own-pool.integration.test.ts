/**
 * The pool `PostgresStore.open({ url })` creates (issue 40): it keeps one connection open while
 * idle, so a server serving a run now and then does not reconnect and prepare its statements again
 * after each pause past pg's 10 s idle timeout (pg's timers are faked: no real wait), and an idle
 * connection does not keep a process alive, so a script that never calls `close()` exits as soon
 * as it has nothing else to do. Against a throwaway server; time budget about 10 s.
 */
import { spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { conformanceStatus } from "@tinyagents/harness/testkit";
import { PostgresStore } from "@tinyagents/postgres";
import { skipPostgres, startTestPostgres, type TestPostgres } from "@tinyagents/postgres/testing";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const childSource = fileURLToPath(new URL("./fixtures/pg-open-and-leave.ts", import.meta.url));
// Bundled once into plain JavaScript, under node_modules so its `pg` import resolves.
const cacheDir = fileURLToPath(
  new URL("../../../node_modules/.cache/tinyagents-postgres-test/", import.meta.url),
);
let child: string;
let server: TestPostgres;

describe.skipIf(skipPostgres())(
  "PostgresStore's own pool (skipped only by TINYAGENTS_SKIP_POSTGRES=1)",
  () => {
    beforeAll(async () => {
      mkdirSync(cacheDir, { recursive: true });
      child = join(cacheDir, `pg-open-and-leave-${process.pid}.mjs`);
      await build({
        entryPoints: [childSource],
        outfile: child,
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        external: ["pg"],
        logLevel: "silent",
      });
      server = await startTestPostgres();
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(child, { force: true });
    });

    it("keeps its one connection (same backend) across a pause past pg's idle timeout", async () => {
      const store = await PostgresStore.open({ url: server.url, schema: "t_own_pool_idle" });
      try {
        const backend = async () =>
          (await store.pool.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]?.pid;
        await store.statusStore.save(conformanceStatus("idle-1"));
        const before = await backend();
        // pg arms its idle timers with the global setTimeout when a query releases its connection.
        vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
        try {
          await store.statusStore.save(conformanceStatus("idle-2"));
          vi.advanceTimersByTime(60_000); // past pg's default idle timeout of 10 s
          expect(store.pool.totalCount).toBe(1);
        } finally {
          vi.useRealTimers();
        }
        expect(await backend()).toBe(before);
        expect((await store.statusStore.get("idle-2"))?.runId).toBe("idle-2");
      } finally {
        await store.close();
      }
    });

    it("asks for TCP keepalive on its connections, so the one it keeps idle does not go stale unnoticed", async () => {
      const calls: unknown[][] = [];
      const original = Socket.prototype.setKeepAlive;
      const spy = vi.spyOn(Socket.prototype, "setKeepAlive").mockImplementation(function (
        this: Socket,
        ...args: Parameters<Socket["setKeepAlive"]>
      ) {
        calls.push(args);
        return original.apply(this, args);
      });
      const store = await PostgresStore.open({ url: server.url, schema: "t_own_pool_keepalive" });
      try {
        await store.statusStore.save(conformanceStatus("keepalive-1"));
        expect(calls).toContainEqual([true, 10_000]);
      } finally {
        spy.mockRestore();
        await store.close();
      }
    });

    it("does not keep a process alive that wrote through it and never closed it", async () => {
      const proc = spawn(process.execPath, [child, server.url, "t_own_pool_exit"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      let wroteAt = 0;
      proc.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (wroteAt === 0 && stdout.includes("wrote")) wroteAt = performance.now();
      });
      proc.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const killer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
      const code = await new Promise<number | null>((resolve) => proc.once("exit", resolve));
      clearTimeout(killer);
      const lingered = performance.now() - wroteAt;
      expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
      expect(stdout).toContain("wrote");
      // Before, its idle connection kept it alive for pg's 10 s idle timeout.
      expect(lingered).toBeLessThan(5_000);
      const reader = await PostgresStore.open({ url: server.url, schema: "t_own_pool_exit" });
      try {
        expect((await reader.statusStore.get("left-open"))?.runId).toBe("left-open");
      } finally {
        await reader.close();
      }
    }, 40_000);
  },
);
