/**
 * The CLI, in memory, for tests: `main(argv, io)` with buffers for stdout and stderr, a temp
 * `TINYAGENTS_HOME`, an offline environment (demo model, no local model server) and, when a test
 * needs it, a Ctrl-C it can fire. One place for what used to be redeclared in every CLI test file.
 */
import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll } from "vitest";
import type { CliIo } from "../../src/core/cli-io.js";
import { main } from "../../src/main.js";

/** A CLI test file's home and its in-memory CLI bound to it (see {@link useCli}). */
export interface CliTestHome {
  /** The temp home (`TINYAGENTS_HOME`, `HOME`, default cwd); only valid from `beforeAll` on. */
  home(): string;
  /** Run `tinyagents <argv>` in memory, offline, in this home (see {@link runCli}). */
  cli(argv: string[], options?: Omit<CliOptions, "home">): Promise<CliResult>;
  /** A {@link CliIo} on buffers in this home, for a command the test drives while it runs. */
  io(options?: Omit<CliOptions, "home">): { io: CliIo; out: CliOutput };
  /** `tinyagents ui` in this home, used then stopped with Ctrl-C (see {@link withUi}). */
  withUi(
    args: string[],
    use: (url: string) => Promise<void>,
    options?: Omit<CliOptions, "home" | "signals">,
  ): Promise<CliResult>;
}

/**
 * The modules the CLI loads on first use of its common commands (`run`, `demo`, `show`, `runs` and
 * the SQLite store). Loading them, transformed from source, is a one-time cost per test process
 * that a loaded machine stretches past a test's 5 s budget: it belongs to the file's setup, not to
 * whichever test happens to run first.
 */
function loadRunPath(): Promise<unknown> {
  return Promise.all([
    import("../../src/commands/run.js"),
    import("../../src/commands/demo.js"),
    import("../../src/commands/show.js"),
    import("../../src/commands/runs.js"),
    import("@tinyagents/harness/sqlite"),
  ]);
}

/**
 * For a CLI test file: a temp home made before its first test and removed after its last (the
 * `prefix` names it in the temp directory), and the CLI bound to it; `defaults` apply to every
 * command (a call's own options win, its `env` is added to theirs).
 */
export function useCli(prefix: string, defaults: Omit<CliOptions, "home"> = {}): CliTestHome {
  let path = "";
  beforeAll(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
    await loadRunPath();
  }, 60_000);
  afterAll(async () => {
    if (path !== "") await rm(path, { recursive: true, force: true });
  });
  const home = () => {
    if (path === "") throw new Error("useCli: the home exists only from beforeAll on");
    return path;
  };
  const merged = <T extends Omit<CliOptions, "home">>(options: T): T & { home: string } => ({
    ...defaults,
    ...options,
    env: { ...defaults.env, ...options.env },
    home: home(),
  });
  return {
    home,
    cli: (argv, options = {}) => runCli(argv, merged(options)),
    io: (options = {}) => cliIo(merged(options)),
    withUi: (args, use, options = {}) => withUi(args, merged(options), use),
  };
}

/**
 * The offline environment of a CLI test: store under `home`, no keys, the demo model without its
 * typing delay, and a local model server that refuses (port 1) so nothing is auto-detected.
 */
export function offlineEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    TINYAGENTS_HOME: home,
    HOME: home,
    OLLAMA_HOST: "127.0.0.1:1",
    TINYAGENTS_DEMO_DELAY_MS: "0",
    ...extra,
  };
}

/** How to run one CLI command in memory. */
export interface CliOptions {
  /** `TINYAGENTS_HOME`, `HOME` and (unless `cwd` is given) the working directory. */
  home: string;
  /** Variables set over {@link offlineEnv} (or instead of it, see `env`). */
  env?: Record<string, string>;
  /** Lines typed on stdin (ended), or a stream the test keeps open. */
  stdin?: readonly string[] | NodeJS.ReadableStream;
  /** The working directory (default: `home`). */
  cwd?: string;
  /** Whether stderr claims to be a terminal (progress bars are drawn only then). */
  stderrIsTTY?: boolean;
  /** Where Ctrl-C is heard: emit `"SIGINT"` on it to press Ctrl-C (default: the process). */
  signals?: EventEmitter;
}

/** What a command printed; `waitFor` resolves once stdout matches (no polling, no sleep). */
export interface CliOutput {
  readonly stdout: string;
  readonly stderr: string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

/** A {@link CliIo} writing into buffers, and the buffers. For commands a test drives while they run. */
export function cliIo(options: CliOptions): { io: CliIo; out: CliOutput } {
  let stdout = "";
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const wake = () => {
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stdout);
      if (match === null) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(match);
    }
  };
  const out: CliOutput = {
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    waitFor: (pattern) =>
      new Promise((resolve) => {
        waiters.push({ pattern, resolve });
        wake();
      }),
  };
  const { signals } = options;
  const stdin = options.stdin ?? [];
  const io: CliIo = {
    stdout: {
      write: (chunk: string) => {
        stdout += chunk;
        wake();
      },
      isTTY: false,
    },
    stderr: { write: (chunk: string) => (stderr += chunk), isTTY: options.stderrIsTTY ?? false },
    stdin: Array.isArray(stdin) ? Readable.from(stdin) : (stdin as NodeJS.ReadableStream),
    env: offlineEnv(options.home, options.env),
    cwd: options.cwd ?? options.home,
    ...(signals === undefined
      ? {}
      : {
          signals: {
            on: (event: "SIGINT", listener: () => void) => signals.on(event, listener),
            off: (event: "SIGINT", listener: () => void) => signals.off(event, listener),
          },
        }),
  };
  return { io, out };
}

/** What `tinyagents <argv>` returned and printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Everything it printed: stdout, a newline, stderr (for checks that care about neither stream). */
  all: string;
}

const result = (code: number, out: CliOutput): CliResult => ({
  code,
  stdout: out.stdout,
  stderr: out.stderr,
  all: `${out.stdout}\n${out.stderr}`,
});

/** Run `tinyagents <argv>` in memory to its end. */
export async function runCli(argv: string[], options: CliOptions): Promise<CliResult> {
  const { io, out } = cliIo(options);
  return result(await main(argv, io), out);
}

/**
 * Start `tinyagents ui <args>` in memory, wait until it prints its URL, hand the URL to `use`, then
 * press Ctrl-C and wait for the command to end. Never hangs on a command that ended early: its
 * output is then in the error.
 */
export async function withUi(
  args: string[],
  options: Omit<CliOptions, "signals">,
  use: (url: string) => Promise<void>,
): Promise<CliResult> {
  const signals = new EventEmitter();
  const { io, out } = cliIo({ ...options, signals });
  const running = main(["ui", "--port", "0", ...args], io);
  const printed = await Promise.race([
    out.waitFor(/inspector on (\S+)/).then((match) => match[1] as string),
    running.then((code) => {
      throw new Error(`tinyagents ui ended (exit ${code}) before printing its URL; stderr: ${out.stderr}`);
    }),
  ]);
  try {
    await use(printed);
  } finally {
    signals.emit("SIGINT");
  }
  return result(await running, out);
}

/**
 * Press Ctrl-C on `signals` as soon as the command listens for it (at once if it already does):
 * waits for the listener to be added, never for a fixed time.
 */
export async function pressCtrlC(signals: EventEmitter): Promise<void> {
  while (signals.listenerCount("SIGINT") === 0) {
    await new Promise<void>((resolve) =>
      signals.once("newListener", (event: string | symbol) => {
        if (event === "SIGINT")
          queueMicrotask(resolve); // added right after "newListener" fires
        else resolve();
      }),
    );
  }
  signals.emit("SIGINT");
}
