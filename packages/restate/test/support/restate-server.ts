// TEMPORARY test launcher until restate-infra's packages/restate/src/testing/ lands on main
// (same function name and the subset of its API these tests use).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { join } from "node:path";

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  registerDeployment(url: string): Promise<void>;
  logs(): string;
  stop(): Promise<void>;
}

/** A Restate SDK logger that drops everything except errors (the tests assert on behaviour). */
export const quiet = (meta: { level: string }, message: unknown, ...rest: unknown[]): void => {
  if (meta.level === "error") console.error(message, ...rest);
};

/** Why the Restate tests are skipped, or undefined when they run. */
export const RESTATE_SKIP =
  process.env.TINYAGENTS_SKIP_RESTATE === "1"
    ? "TINYAGENTS_SKIP_RESTATE=1: Restate server tests skipped (they run in CI)"
    : undefined;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startRestateServer(): Promise<RestateServer> {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@restatedev/restate-server/package.json");
  const binary = createRequire(manifest).resolve(
    `@restatedev/restate-server-${platform()}-${arch()}/bin/restate-server`,
  );
  const baseDir = await mkdtemp(join(tmpdir(), "tinyagents-restate-"));
  const [ingress, admin, fabric] = [await freePort(), await freePort(), await freePort()];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith("RESTATE_") && v !== undefined) env[k] = v;
  Object.assign(env, {
    RESTATE_BASE_DIR: baseDir,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_LISTEN_MODE: "tcp",
    RESTATE_DISABLE_TELEMETRY: "true",
    RESTATE_LOG_FORMAT: "compact",
    RESTATE_LOG_DISABLE_ANSI_CODES: "true",
    RESTATE_DEFAULT_NUM_PARTITIONS: "2",
    RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: "50ms",
  });
  const child: ChildProcess = spawn(
    binary,
    ["--bind-ip", "127.0.0.1", "--advertised-host", "127.0.0.1", "--no-logo"],
    {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let log = "";
  const append = (chunk: Buffer) => {
    log = (log + chunk.toString("utf8")).slice(-64 * 1024);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
    await rm(baseDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`restate-server exited: ${log}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`restate-server not healthy: ${log}`);
    }
    const ok = await Promise.all([
      fetch(`${adminUrl}/query`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query: "SELECT count(*) AS n FROM sys_invocation" }),
      }).then(
        (r) => r.ok,
        () => false,
      ),
      fetch(`${ingressUrl}/restate/health`).then(
        (r) => r.ok,
        () => false,
      ),
    ]);
    if (ok.every(Boolean)) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    ingressUrl,
    adminUrl,
    logs: () => log,
    stop,
    registerDeployment: async (uri) => {
      const res = await fetch(`${adminUrl}/deployments`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri, force: true }),
      });
      if (!res.ok) throw new Error(`register ${uri}: ${res.status} ${await res.text()}`);
    },
  };
}
