import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TinyAgentsError } from "@tinyagents/inference";
import { findPostgresBinaries } from "./postgres-binaries.js";

/** Options of {@link startTestPostgres}. */
export interface StartTestPostgresOptions {
  /** Directory holding `initdb` and `postgres` (default: found, see `findPostgresBinaries`). */
  binDir?: string;
  /** Parent of the throwaway directory (default `os.tmpdir()`; must be traversable by `postgres` when root). */
  baseDir?: string;
  /** How long to wait for "ready to accept connections" (default 30 s: initdb + start take ~1-4 s). */
  startTimeoutMs?: number;
  /** Extra `-c name=value` server settings, e.g. `{ max_connections: "200" }`. */
  settings?: Readonly<Record<string, string>>;
}

/** A running throwaway Postgres. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth: no password). */
  url: string;
  port: number;
  /** The temporary directory (data dir and unix socket); removed by `stop()`. */
  dir: string;
  /** Milliseconds from the call to ready: initdb + server start. */
  startMs: number;
  /** Fast shutdown (SIGINT, then SIGKILL after 5 s), then remove the directory. Idempotent. */
  stop(): Promise<void>;
}

const READY = "database system is ready to accept connections";
const LOG_TAIL = 4000;

/** The uid/gid of the `postgres` OS user (Postgres refuses to run as root). */
function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  const [, , uid, gid] = line?.split(":") ?? [];
  if (uid === undefined || gid === undefined) {
    throw new TinyAgentsError(
      "storage",
      "startTestPostgres runs as root, and Postgres refuses to run as root, but there is no `postgres` OS user " +
        "to run it as. Install Debian's postgresql package (apt-get install -y postgresql), which creates it.",
      { details: { reason: "no_postgres_user" } },
    );
  }
  return { uid: Number(uid), gid: Number(gid) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.isDirectory()) chownTree(join(path, entry.name), uid, gid);
    else chownSync(join(path, entry.name), uid, gid);
  }
}

function run(file: string, args: string[], ids: { uid?: number; gid?: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { ...ids, env: { ...process.env, LC_ALL: "C" } }, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else
        reject(
          new TinyAgentsError(
            "storage",
            `${file} failed: ${String(stderr).slice(-LOG_TAIL) || error.message}`,
            {
              cause: error,
            },
          ),
        );
    });
  });
}

/**
 * Start a throwaway PostgreSQL for tests: `initdb` (trust auth, user `postgres`, C locale, UTF8)
 * into a fresh temp directory, then `postgres` listening on 127.0.0.1 only, on a free port, with
 * its unix socket inside that directory. As root (CI), the directory is chowned to the `postgres`
 * OS user and both programs run as that user. Throws `PostgresNotInstalledError` when no Postgres
 * is installed. Always `stop()` it (afterAll).
 */
export async function startTestPostgres(options: StartTestPostgresOptions = {}): Promise<TestPostgres> {
  const started = Date.now();
  const bins = findPostgresBinaries(options.binDir === undefined ? {} : { binDir: options.binDir });
  const ids: { uid?: number; gid?: number } = process.getuid?.() === 0 ? postgresUser() : {};
  const dir = mkdtempSync(join(options.baseDir ?? tmpdir(), "tinyagents-pg-"));
  const data = join(dir, "data");
  let child: ChildProcess | undefined;
  try {
    mkdirSync(data, { mode: 0o700 });
    if (ids.uid !== undefined && ids.gid !== undefined) chownTree(dir, ids.uid, ids.gid);
    await run(
      bins.initdb,
      [
        "-D",
        data,
        "-A",
        "trust",
        "-U",
        "postgres",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
        "--no-instructions",
      ],
      ids,
    );
    // A port chosen here can be taken before postgres binds it: retry on a fresh one.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings: Record<string, string> = {
        listen_addresses: "127.0.0.1",
        unix_socket_directories: dir,
        // Throwaway data: no fsync (much faster on a loaded CI box).
        fsync: "off",
        synchronous_commit: "off",
        full_page_writes: "off",
        ...options.settings,
      };
      const args = ["-D", data, "-p", String(port)];
      for (const [name, value] of Object.entries(settings)) args.push("-c", `${name}=${value}`);
      child = spawn(bins.postgres, args, {
        ...ids,
        env: { ...process.env, LC_ALL: "C" },
        stdio: ["ignore", "ignore", "pipe"],
      });
      const outcome = await waitReady(child, options.startTimeoutMs ?? 30_000);
      if (outcome.ready) {
        return handle(child, dir, port, Date.now() - started);
      }
      child = undefined;
      if (!/could not bind|Address already in use/i.test(outcome.log) || attempt >= 3) {
        throw new TinyAgentsError("storage", `postgres did not start: ${outcome.log.slice(-LOG_TAIL)}`, {
          details: { port },
        });
      }
    }
  } catch (error) {
    if (child !== undefined) await kill(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Wait for the ready line on stderr, or the process's exit (not ready), or the timeout. */
function waitReady(child: ChildProcess, timeoutMs: number): Promise<{ ready: boolean; log: string }> {
  return new Promise((resolve) => {
    let log = "";
    let done = false;
    const finish = (ready: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve({ ready, log });
    };
    const onExit = () => finish(false);
    const timer = setTimeout(() => {
      log += `\n(timed out after ${timeoutMs} ms)`;
      child.kill("SIGKILL");
      finish(false);
    }, timeoutMs);
    child.stderr?.setEncoding("utf8");
    // Keep draining stderr for the server's whole life: a full pipe would block its logging.
    child.stderr?.on("data", (chunk: string) => {
      log = (log + chunk).slice(-LOG_TAIL);
      if (!done && log.includes(READY)) finish(true);
    });
    child.once("exit", onExit);
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve();
      return;
    }
    const force = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGINT"); // Postgres "fast shutdown": disconnect clients, stop now
  });
}

function handle(child: ChildProcess, dir: string, port: number, startMs: number): TestPostgres {
  // If the test process dies without stop(), do not leave a server behind.
  const onExit = () => {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", onExit);
  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    startMs,
    stop() {
      stopping ??= (async () => {
        process.off("exit", onExit);
        await kill(child);
        child.stderr?.destroy();
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
