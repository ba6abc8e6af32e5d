import { TinyAgentsError } from "@tinyagents/inference";
import { COMMON_OPTIONS, parseCommandArgs } from "../core/args.js";
import { CliError, usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { serveInspector } from "../ui/inspector-server.js";
import type { RunDescription } from "../ui/view-types.js";

/** The `--help` text of `tinyagents ui`. */
export const UI_HELP = `tinyagents ui [--db FILE] [--port N] [--host H] [--token T]

A local web inspector for recorded runs: the runs list, each run's timeline, transcript, usage and
cost, prompt-cache view, a live tail of running runs, and side-by-side comparison. Offline: every
asset is served from this package. Stop it with Ctrl-C.

It reads the store only: approving, pausing or cancelling a run needs the run's own process (see
serveInspector in docs/ui.md).

Options:
      --port N     port (default 4173; 0 picks a free one)
      --host H     address to bind (default 127.0.0.1)
      --token T    access token (at least 16 characters; else TINYAGENTS_UI_TOKEN, else one is
                   generated). Every bind, loopback included, needs it: open the printed URL
                   (…/?token=…) and the page keeps it in an HttpOnly cookie
      --db FILE    the SQLite store (see \`tinyagents run --help\`)
  -h, --help       this help
`;

/** `tinyagents ui`: serve the inspector until Ctrl-C. */
export async function uiCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("ui", argv, {
    ...COMMON_OPTIONS,
    port: { type: "string" },
    host: { type: "string" },
    token: { type: "string" },
  });
  if (values.help === true) {
    io.stdout.write(UI_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw usageError(`ui takes no arguments, got "${positionals.join(" ")}"; see: tinyagents ui --help`);
  const port = values.port === undefined ? 4173 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
  const token = values.token ?? io.env.TINYAGENTS_UI_TOKEN;
  if (token !== undefined && token.length < 16) throw usageError("--token must be at least 16 characters");
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env);
  let server: Awaited<ReturnType<typeof serveInspector>>;
  try {
    server = await serveInspector({
      journal: store.journal,
      statusStore: store.statusStore,
      describeRun: describeCliRun(store),
      evals: new (await import("@tinyagents/harness/evals")).EvalStore(store.keyValue),
      host: values.host ?? "127.0.0.1",
      port,
      ...(token === undefined ? {} : { token }),
    });
  } catch (error) {
    await store.close();
    // A busy port or an unbuilt web app: a configuration problem (exit 3), said in one line.
    throw error instanceof TinyAgentsError ? new CliError(error.message, EXIT.config) : error;
  }
  io.stdout.write(`tinyagents inspector on ${server.url}\nreading ${store.file} · Ctrl-C to stop\n`);
  const signals = io.signals ?? process;
  await new Promise<void>((resolve) => {
    const stop = () => {
      signals.off("SIGINT", stop);
      resolve();
    };
    signals.on("SIGINT", stop);
  });
  await server.close();
  await store.close();
  return EXIT.ok;
}

/** What the CLI's run record adds to a run in the inspector: its prompt, command, model, capture. */
export function describeCliRun(store: CliStore): (runId: string) => Promise<RunDescription | undefined> {
  return async (runId) => {
    const record = await store.getRun(runId);
    return record === undefined
      ? undefined
      : {
          prompt: record.prompt,
          rootAgent: `cli:${record.command}`,
          tags: [`cli:${record.command}`, record.model],
          ...(record.captureContent === false ? { contentCaptured: false } : {}),
        };
  };
}
