import { MAIN_HELP } from "./commands/help.js";
import { describeFailure } from "./core/cli-error.js";
import type { CliIo } from "./core/cli-io.js";
import { EXIT } from "./core/exit-codes.js";
import { redactedIo } from "./core/redacted-io.js";
import { cliVersion } from "./core/version.js";

type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** Commands load on use, so `--help` and quick commands start fast. */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => (await import("./commands/run.js")).runCommand,
  chat: async () => (await import("./commands/chat.js")).chatCommand,
  runs: async () => (await import("./commands/runs.js")).runsCommand,
  recover: async () => (await import("./commands/recover.js")).recoverCommand,
  show: async () => (await import("./commands/show.js")).showCommand,
  probe: async () => (await import("./commands/probe.js")).probeCommand,
  demo: async () => (await import("./commands/demo.js")).demoCommand,
  eval: async () => (await import("./commands/eval.js")).evalCommand,
  ui: async () => (await import("./commands/ui.js")).uiCommand,
  test: async () => (await import("./commands/test-export.js")).testCommand,
};

/**
 * The `tinyagents` command line: dispatch `argv` (without `node` and the script) to a command and
 * return its exit code. Errors become one clear line on stderr with a documented exit code.
 * No arguments runs the offline demo (that is what `npm start` shows). Output goes through
 * `redactedIo`: no configured credential is ever printed.
 */
export async function main(argv: readonly string[], given: CliIo): Promise<number> {
  // Every line the CLI prints masks configured credentials, as the journal does.
  const io = redactedIo(given);
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout.write(MAIN_HELP);
    return EXIT.ok;
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write(`tinyagents ${cliVersion()} (Node.js ${process.versions.node}${runtimeNote()})\n`);
    return EXIT.ok;
  }
  const load = COMMANDS[name ?? "demo"];
  if (load === undefined) {
    io.stderr.write(
      `unknown command "${name}"; commands: ${Object.keys(COMMANDS).join(", ")} (see tinyagents --help)\n`,
    );
    return EXIT.usage;
  }
  try {
    const command = await load();
    return await command(rest, io);
  } catch (error) {
    const failure = describeFailure(error);
    io.stderr.write(`tinyagents ${name ?? "demo"}: ${failure.message}\n`);
    return failure.exitCode;
  }
}

/** `, Bun 1.x` when running under Bun (which also reports a Node.js version). */
function runtimeNote(): string {
  const bun = (process.versions as Record<string, string | undefined>).bun;
  return bun === undefined ? "" : `, Bun ${bun}`;
}
