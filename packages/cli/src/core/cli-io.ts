/** Where a command writes (a test passes buffers). */
export interface CliOutput {
  write(chunk: string): unknown;
  /** True when this is an interactive terminal (progress lines are drawn only then). */
  isTTY?: boolean | undefined;
}

/** Everything a command touches outside itself, injectable for tests. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean | undefined };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Where Ctrl-C is heard (default: `process`). */
  signals?: {
    on(event: "SIGINT", listener: () => void): unknown;
    off(event: "SIGINT", listener: () => void): unknown;
  };
}

/** The real process's streams, environment and working directory. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signals: process,
  };
}
