import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { TinyAgentsError } from "@tinyagents/inference";
import { type ProxyUpstream, startTcpProxy } from "./tcp-proxy.js";
import { WORKER_READY } from "./worker-protocol.js";

/** Options of {@link startWorkerPool}. */
export interface WorkerPoolOptions {
  /** The worker script (run with `node`); it serves an endpoint and calls `serveWorker`. */
  script: string;
  /** Arguments after the script. */
  args?: string[];
  /** Node options before the script, e.g. `["--import", "tsx"]` for a TypeScript worker. */
  execArgv?: string[];
  /** Extra environment (on top of this process's); each worker also gets `TINYAGENTS_WORKER_INDEX`. */
  env?: Record<string, string>;
  /** Workers to start (default 2). */
  workers?: number;
  /** Every stdout line a worker prints (except its ready line), with the worker's index. */
  onLine?: (line: string, worker: number) => void;
  /** Every stderr line a worker prints (default: kept, the last 8 KB, for error messages). */
  onStderr?: (line: string, worker: number) => void;
  /** Fail when a worker is not ready after this long (default 30 s). */
  readyTimeoutMs?: number;
}

/** One worker of a {@link WorkerPool}. */
export interface PoolWorker {
  index: number;
  pid: number | undefined;
  /** Its endpoint's loopback port; `undefined` while it is not running. */
  port: number | undefined;
  alive: boolean;
}

/** N worker processes behind one stable URL, see {@link startWorkerPool}. */
export interface WorkerPool {
  /** The URL to register with Restate as the deployment (the proxy in front of the workers). */
  readonly url: string;
  workers(): PoolWorker[];
  /** Open connections relayed to each worker right now. */
  connections(): number[];
  /** Send `signal` (default SIGKILL) to worker `index` and wait until it exited and its connections dropped. */
  kill(index: number, signal?: NodeJS.Signals): Promise<void>;
  /** Start worker `index` again (killing it first if it still runs); resolves once it is ready. */
  restart(index: number): Promise<void>;
  /** Start one more worker; resolves with its index once it is ready. */
  add(): Promise<number>;
  /** Kill every worker and close the proxy. */
  stop(): Promise<void>;
}

interface Slot extends ProxyUpstream {
  child: ChildProcess | undefined;
  exited: Promise<void>;
}

/**
 * Start `workers` worker processes and a loopback TCP proxy in front of them ({@link startTcpProxy}):
 * register `pool.url` with Restate once, as if it were one deployment, and Restate's
 * connections are spread round-robin over the live workers. Killing a worker resets its
 * connections, so Restate retries the invocations it ran and they land on survivors — the
 * setup for "SIGKILL the worker running the run, the run finishes elsewhere" tests and benches.
 *
 * A worker is any Node script that serves a Restate endpoint (HTTP/2 cleartext) on a free
 * 127.0.0.1 port and then prints its ready line (`serveWorker` does both).
 */
export async function startWorkerPool(options: WorkerPoolOptions): Promise<WorkerPool> {
  const slots: Slot[] = [];
  const proxy = await startTcpProxy(slots);
  let stopped = false;
  // If this process exits without stop() (a crashed test), take the workers along: they listen
  // on ports and would outlive it.
  const killOnExit = () => {
    for (const slot of slots) slot.child?.kill("SIGKILL");
  };
  process.once("exit", killOnExit);

  const launch = async (index: number): Promise<void> => {
    const slot = slots[index];
    if (slot === undefined) throw new Error(`no worker ${index}`);
    const child = spawn(
      process.execPath,
      [...(options.execArgv ?? []), options.script, ...(options.args ?? [])],
      {
        env: { ...process.env, ...options.env, TINYAGENTS_WORKER_INDEX: String(index) },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    slot.child = child;
    slot.port = undefined;
    slot.exited = new Promise((resolve) => child.once("close", () => resolve()));
    let stderr = "";
    createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
      stderr = `${stderr}${line}\n`.slice(-8192);
      options.onStderr?.(line, index);
    });
    child.once("exit", () => {
      if (slot.child !== child) return;
      slot.port = undefined;
      proxy.drop(index);
    });
    const ready = new Promise<number>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
      lines.on("line", (line) => {
        if (line.startsWith(WORKER_READY)) resolve(Number(line.slice(WORKER_READY.length).trim()));
        else options.onLine?.(line, index);
      });
      child.once("exit", (code, signal) =>
        reject(new Error(`worker ${index} exited (${code ?? signal}) before it was ready: ${stderr}`)),
      );
    });
    const timeoutMs = options.readyTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`worker ${index} not ready after ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      );
    });
    try {
      const port = await Promise.race([ready, timeout]);
      if (slot.child === child && child.exitCode === null) slot.port = port;
    } catch (cause) {
      child.kill("SIGKILL");
      throw new TinyAgentsError(
        "internal",
        `${cause instanceof Error ? cause.message : String(cause)} (script ${options.script}; a worker must ` +
          `serve its endpoint on 127.0.0.1 and print "${WORKER_READY} <port>")`,
        { cause, details: { worker: index } },
      );
    } finally {
      clearTimeout(timer);
    }
  };

  const kill = async (index: number, signal: NodeJS.Signals = "SIGKILL") => {
    const slot = slots[index];
    if (slot?.child === undefined) return;
    slot.port = undefined; // no new connection goes there from now on
    const child = slot.child;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const forced = setTimeout(() => child.kill("SIGKILL"), 5000);
    await slot.exited;
    clearTimeout(forced);
    proxy.drop(index);
  };

  const add = async () => {
    const index = slots.length;
    slots.push({ port: undefined, child: undefined, exited: Promise.resolve() });
    await launch(index);
    return index;
  };

  try {
    await Promise.all(Array.from({ length: options.workers ?? 2 }, () => add()));
  } catch (error) {
    process.removeListener("exit", killOnExit);
    await Promise.all(slots.map((_, i) => kill(i)));
    await proxy.close();
    throw error;
  }

  return {
    url: `http://127.0.0.1:${proxy.port}`,
    workers: () =>
      slots.map((slot, index) => ({
        index,
        pid: slot.child?.pid,
        port: slot.port,
        alive: slot.child !== undefined && slot.child.exitCode === null && slot.child.signalCode === null,
      })),
    connections: () => proxy.connections(),
    kill,
    restart: async (index) => {
      await kill(index);
      await launch(index);
    },
    add,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      process.removeListener("exit", killOnExit);
      await Promise.all(slots.map((_, i) => kill(i)));
      await proxy.close();
    },
  };
}
