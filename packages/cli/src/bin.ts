#!/usr/bin/env node
import { processIo } from "./core/cli-io.js";
import { exitQuietlyOnEpipe } from "./core/quiet-epipe.js";
import { main } from "./main.js";

// A closed output pipe (`tinyagents runs --json | head -1`) ends the command quietly.
exitQuietlyOnEpipe(process.stdout, (code) => process.exit(code));
exitQuietlyOnEpipe(process.stderr, (code) => process.exit(code));

// If the event loop empties while the command is still pending (a promise that can never
// settle, e.g. a user's scorer), Node would exit 0: a false pass in CI. Fail loudly instead.
let settled = false;
process.exitCode = 1;
process.on("exit", () => {
  if (!settled) {
    process.stderr.write(
      "tinyagents: stopped with the command unfinished (something it awaited can never settle, such as a promise nothing resolves)\n",
    );
  }
});

// Once the command is done, something the user's code left running (an eval scorer's interval,
// say) must not keep the process alive: give output a moment to flush, then exit with the code.
function exitSoon(): void {
  setTimeout(() => process.exit(), 1_000).unref();
}

main(process.argv.slice(2), processIo()).then(
  (code) => {
    settled = true;
    process.exitCode = code;
    exitSoon();
  },
  (error: unknown) => {
    settled = true;
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
    exitSoon();
  },
);
