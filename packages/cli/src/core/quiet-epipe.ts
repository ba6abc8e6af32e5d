/** The stream events `exitQuietlyOnEpipe` listens to (a `process.stdout`-like emitter). */
export interface ErrorEmitter {
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/**
 * `tinyagents runs --json | head -1`: when the reader of our output goes away, writing fails with
 * `EPIPE`. That is the reader's choice, not a failure: exit at once with status 0 and no stack
 * trace. Any other stream error is rethrown (it stays loud).
 */
export function exitQuietlyOnEpipe(stream: ErrorEmitter, exit: (code: number) => void): void {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") {
      exit(0);
      return;
    }
    throw error;
  });
}
