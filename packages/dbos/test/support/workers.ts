import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const source = fileURLToPath(new URL("../fixtures/dbos-worker.mjs", import.meta.url));
// The worker, bundled once per test file from the sources (tsconfig paths) into plain JavaScript:
// a spawn then costs no transpiling and needs no `npm run build`. Written under node_modules so
// its external imports (the DBOS SDK, pg: CommonJS) resolve from the workspace root.
const script = fileURLToPath(
  new URL(
    `../../../../node_modules/.cache/tinyagents-dbos-test/dbos-worker-${process.pid}.mjs`,
    import.meta.url,
  ),
);
let bundled: Promise<unknown> | undefined;

/** Delete this process's bundle (call after the last worker exited). */
export function removeWorkerBundle(): void {
  rmSync(script, { force: true });
}

/** Bundle the worker fixture (once per process). */
export function bundleWorker(): Promise<unknown> {
  bundled ??= build({
    entryPoints: [source],
    outfile: script,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: fileURLToPath(new URL("../../../../tsconfig.json", import.meta.url)),
    external: ["@dbos-inc/dbos-sdk", "@dbos-inc/dbos-sdk/*", "pg"],
    logLevel: "silent",
  });
  return bundled;
}

/** The worker fixture's configuration (see test/fixtures/dbos-worker.mjs). */
export interface WorkerConfig {
  url: string;
  executorId: string;
  ledgerPath?: string;
  killAt?: string;
  modelDelayMs?: number;
  toolDelayMs?: number;
  autoApprove?: boolean;
  /** A Postgres database every worker journals its runs' events to. */
  journalUrl?: string;
  /** Print `lag <json>` lines: per journaled event, ms from emitted to written. */
  lag?: boolean;
  workerConcurrency?: number;
}

/** One spawned worker: its output lines, waits for a line, commands, kill. */
export class Worker {
  private readonly child: ChildProcess;
  private readonly lines: string[] = [];
  private readonly waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  private stderr = "";
  readonly exited: Promise<void>;

  constructor(config: WorkerConfig) {
    this.child = spawn(process.execPath, ["--no-deprecation", script, JSON.stringify(config)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let buffer = "";
    this.child.stdout?.on("data", (d: Buffer) => {
      buffer += d.toString();
      let nl = buffer.indexOf("\n");
      while (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.lines.push(line);
        for (const w of [...this.waiters]) {
          if (w.match(line)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
        nl = buffer.indexOf("\n");
      }
    });
    this.child.stderr?.on("data", (d: Buffer) => {
      this.stderr += d.toString();
    });
    this.exited = new Promise((resolve) => this.child.once("exit", () => resolve()));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Every output line so far. */
  output(): readonly string[] {
    return this.lines;
  }

  /** The first output line starting with `prefix` (already printed, or the next one). */
  waitFor(prefix: string): Promise<string> {
    const match = (line: string) => line.startsWith(prefix);
    const seen = this.lines.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ match, resolve });
      void this.exited.then(() =>
        reject(new Error(`worker exited before printing "${prefix}"; stderr:\n${this.stderr}`)),
      );
    });
  }

  command(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  /** SIGKILL (a crash: no shutdown, no flush) and wait for the exit. */
  async kill(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM: the worker shuts DBOS down and exits. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    await this.exited;
  }
}

/** Spawn a worker and wait until it has launched DBOS. */
export async function startWorker(config: WorkerConfig, all: Worker[]): Promise<Worker> {
  const worker = new Worker(config);
  all.push(worker);
  await worker.waitFor("ready");
  return worker;
}
