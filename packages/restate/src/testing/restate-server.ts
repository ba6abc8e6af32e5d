import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { freePort } from "./free-port.js";
import { loopbackRequest } from "./loopback-http.js";
import { resolveRestateServerBinary } from "./resolve-binary.js";

/** Options of {@link startRestateServer}. */
export interface StartRestateServerOptions {
  /** The `restate-server` binary; default: the one in node_modules ({@link resolveRestateServerBinary}). */
  binary?: string;
  /** Data directory; default: a fresh temp directory, deleted by `stop()` (a given one is kept). */
  baseDir?: string;
  /** Partitions of the new cluster (Restate's default is 24; 4 starts faster on a small box). */
  partitions?: number;
  /**
   * First delay (ms) before Restate retries a failed invocation attempt, e.g. after its worker
   * died. Default: the server's own (500 ms, doubling). Lower it to make recovery tests faster.
   */
  retryInitialIntervalMs?: number;
  /**
   * HTTP/2 streams Restate multiplexes on one connection to a deployment (server default 128).
   * A low value makes Restate open one connection per concurrent invocation, which a TCP
   * load balancer in front of several workers ({@link startWorkerPool}) can then spread.
   */
  streamsPerConnection?: number;
  /** More `RESTATE_*` configuration (see `restate-server --dump-config`); wins over the above. */
  env?: Record<string, string>;
  /** Give up when the server is not healthy after this long (default 30 s). */
  startTimeoutMs?: number;
  /**
   * Fixed loopback ports (default: free ones). With the same `baseDir`, a server killed and
   * started again with the same ports is the same node: its clients and deployments still work.
   */
  ports?: { ingress: number; admin: number; node: number };
}

/** A deployment as Restate's admin API registered it. */
export interface RestateDeployment {
  id: string;
  /** The services the deployment exposes (names), as discovered by Restate. */
  services: string[];
}

/** A running local Restate server, see {@link startRestateServer}. */
export interface RestateServer {
  /** Where clients call services: `http://127.0.0.1:<port>`. */
  readonly ingressUrl: string;
  /** Admin API (deployments, invocations, SQL introspection): `http://127.0.0.1:<port>`. */
  readonly adminUrl: string;
  readonly baseDir: string;
  readonly pid: number;
  /** Milliseconds from spawn until both the admin API and the ingress answered healthy. */
  readonly startupMs: number;
  /** Register (or, with `force`, re-register) the service endpoint at `url` (an h2c endpoint). */
  registerDeployment(url: string, options?: { force?: boolean }): Promise<RestateDeployment>;
  /** Run a SQL query on Restate's introspection tables (`sys_invocation`, `sys_journal`, ...). */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** The last ~64 KB the server logged (stdout and stderr), for error messages. */
  logs(): string;
  /** Kill the server (SIGTERM, SIGKILL after 5 s), wait for it to exit, delete a temp base dir. */
  stop(): Promise<void>;
}

const LOG_LIMIT = 64 * 1024;
const BIND_ATTEMPTS = 3;

/**
 * Start a single-node Restate server from node_modules for tests, examples and benchmarks: bound
 * to 127.0.0.1 only (ingress, admin and node-to-node ports chosen free, no unix sockets), a
 * temporary `RESTATE_BASE_DIR`, telemetry off, and no `RESTATE_*` variable of the caller's
 * environment leaking in. Resolves once the admin API and the ingress both answer their health
 * endpoints. (The server still tries one GitHub "latest release" lookup at startup that no
 * option disables; offline it fails quietly and changes nothing.)
 */
export async function startRestateServer(options: StartRestateServerOptions = {}): Promise<RestateServer> {
  const binary = options.binary ?? resolveRestateServerBinary();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, options);
    } catch (error) {
      const portTaken = TinyAgentsError.isInstance(error) && error.details?.reason === "port_in_use";
      if (!portTaken || attempt >= BIND_ATTEMPTS) throw error;
    }
  }
}

async function startOnce(binary: string, options: StartRestateServerOptions): Promise<RestateServer> {
  const ownDir = options.baseDir === undefined;
  const baseDir = options.baseDir ?? (await mkdtemp(join(tmpdir(), "tinyagents-restate-")));
  const [ingress, admin, fabric] =
    options.ports === undefined
      ? [await freePort(), await freePort(), await freePort()]
      : [options.ports.ingress, options.ports.admin, options.ports.node];
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("RESTATE_") && value !== undefined) env[key] = value;
  }
  Object.assign(env, {
    RESTATE_BASE_DIR: baseDir,
    RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
    RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
    RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
    RESTATE_LISTEN_MODE: "tcp",
    RESTATE_DISABLE_TELEMETRY: "true",
    RESTATE_LOG_FORMAT: "compact",
    RESTATE_LOG_DISABLE_ANSI_CODES: "true",
    RESTATE_DEFAULT_NUM_PARTITIONS: String(options.partitions ?? 4),
  });
  if (options.retryInitialIntervalMs !== undefined) {
    env.RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL = `${options.retryInitialIntervalMs}ms`;
  }
  if (options.streamsPerConnection !== undefined) {
    env.RESTATE_WORKER__INVOKER__HTTP2_STREAMS_PER_CONNECTION_LIMIT = String(options.streamsPerConnection);
  }
  Object.assign(env, options.env);

  const started = performance.now();
  const child = spawn(binary, ["--bind-ip", "127.0.0.1", "--advertised-host", "127.0.0.1", "--no-logo"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const append = (chunk: Buffer) => {
    log += chunk.toString("utf8");
    if (log.length > LOG_LIMIT * 2) log = log.slice(-LOG_LIMIT);
  };
  child.stdout?.on("data", append);
  child.stderr?.on("data", append);
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const logs = () => (log.length > LOG_LIMIT ? log.slice(-LOG_LIMIT) : log);
  let stopped = false;
  const stop = async () => {
    if (!stopped) {
      stopped = true;
      process.removeListener("exit", killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      } else {
        await exited;
      }
      if (ownDir) await rm(baseDir, { recursive: true, force: true });
    }
  };

  try {
    const deadline = performance.now() + (options.startTimeoutMs ?? 30_000);
    await waitHealthy(child, [`${adminUrl}/health`, `${ingressUrl}/restate/health`], deadline);
    await waitPartitionsLed(child, adminUrl, deadline);
  } catch (error) {
    await stop();
    throw startFailure(error, logs(), binary);
  }
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    pid: child.pid ?? -1,
    startupMs: Math.round(performance.now() - started),
    registerDeployment: (url, registerOptions) => registerDeployment(adminUrl, url, registerOptions),
    query: (sql) => query(adminUrl, sql),
    logs,
    stop,
  };
}

function checkAlive(child: ChildProcess, deadline: number, what: string): void {
  if (child.exitCode !== null || child.signalCode !== null) {
    throw new Error(`exited (${child.exitCode ?? child.signalCode}) before ${what}`);
  }
  if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitHealthy(child: ChildProcess, urls: string[], deadline: number): Promise<void> {
  let pending = urls;
  while (pending.length > 0) {
    checkAlive(child, deadline, "its admin API and ingress were healthy");
    const answers = await Promise.all(
      pending.map((url) =>
        loopbackRequest("GET", url, undefined, { timeoutMs: 2000 }).then(
          (res) => res.status === 200,
          () => false,
        ),
      ),
    );
    pending = pending.filter((_, i) => !answers[i]);
    if (pending.length > 0) await pause(25);
  }
}

/**
 * Health answers before every partition has a leader; until then invocations wait and
 * introspection queries fail ("node lookup for partition N failed"). A query over all
 * partitions succeeds only once each is led: from then on the server is really ready.
 */
async function waitPartitionsLed(child: ChildProcess, adminUrl: string, deadline: number): Promise<void> {
  for (;;) {
    checkAlive(child, deadline, "all its partitions had a leader");
    try {
      await query(adminUrl, "SELECT count(*) AS n FROM sys_invocation");
      return;
    } catch {
      await pause(25);
    }
  }
}

/**
 * Whether the server's log says a port it was given was taken between our check and its bind
 * (then a new set of ports is tried). restate-server words it "Address already in use", or
 * "failed binding to address '127.0.0.1:N': Address in use (os error 98)" for its node port.
 */
export function logsSayPortTaken(logs: string): boolean {
  return /address (already )?in use|AddrInUse|os error 98\b/i.test(logs);
}

function startFailure(error: unknown, logs: string, binary: string): TinyAgentsError {
  const reason = logsSayPortTaken(logs) ? "port_in_use" : "start_failed";
  const why = error instanceof Error ? error.message : String(error);
  return new TinyAgentsError(
    reason === "port_in_use" ? "conflict" : "internal",
    `restate-server (${binary}) ${why}; its last log lines:\n${logs.split("\n").slice(-15).join("\n")}`,
    { cause: error, details: { reason } },
  );
}

async function registerDeployment(
  adminUrl: string,
  uri: string,
  options: { force?: boolean } = {},
): Promise<RestateDeployment> {
  const res = await loopbackRequest("POST", `${adminUrl}/deployments`, {
    uri,
    force: options.force ?? false,
  });
  if (res.status < 200 || res.status >= 300) {
    throw new TinyAgentsError(
      "validation",
      `Restate refused to register the deployment ${uri} (HTTP ${res.status}): ${res.body}. ` +
        "Check that the endpoint is listening (HTTP/2 cleartext) and serves Restate services.",
      { details: { uri, status: res.status } },
    );
  }
  const body = JSON.parse(res.body) as { id: string; services?: { name: string }[] };
  return { id: body.id, services: (body.services ?? []).map((s) => s.name) };
}

async function query<T>(adminUrl: string, sql: string): Promise<T[]> {
  const res = await loopbackRequest(
    "POST",
    `${adminUrl}/query`,
    { query: sql },
    {
      headers: { accept: "application/json" },
    },
  );
  if (res.status !== 200) {
    throw new TinyAgentsError("validation", `Restate SQL query failed (HTTP ${res.status}): ${res.body}`, {
      details: { status: res.status },
    });
  }
  return (JSON.parse(res.body) as { rows: T[] }).rows;
}
