import { COMMON_OPTIONS, parseCommandArgs } from "../core/args.js";
import { CliError, usageError } from "../core/cli-error.js";
import type { CliIo } from "../core/cli-io.js";
import { openCliStore } from "../core/cli-store.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { resolveRunId } from "../core/run-lookup.js";
import { renderTimeline } from "../render/timeline.js";

/** The `--help` text of `tinyagents show`. */
export const SHOW_HELP = `tinyagents show <run-id> [--json]

A readable timeline of a run from its journal: model calls (model, duration, tokens, cost) and the
tool calls they led to (arguments, outcome, duration), sub-agent runs nested below, retries,
limits and the outcome. \`last\` shows the most recent run.

Options:
      --json     the raw observations, one JSON object per line
      --db FILE  the SQLite store (see \`tinyagents run --help\`)
  -h, --help     this help
`;

/** `tinyagents show <run-id>`: render a run tree's journal. */
export async function showCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs("show", argv, {
    ...COMMON_OPTIONS,
    json: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(SHOW_HELP);
    return EXIT.ok;
  }
  const [wanted, ...extra] = positionals;
  if (wanted === undefined || extra.length > 0)
    throw usageError(
      "show needs exactly one run id: tinyagents show <run-id> (list them with tinyagents runs)",
    );
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env, (warning) =>
    io.stderr.write(`warning: ${warning.message}\n`),
  );
  try {
    const runId = await resolveRunId(store, wanted);
    const observations = await store.journal.read(runId);
    if (observations.length === 0) {
      throw new CliError(
        `no journal for run "${runId}" in ${store.file}; list the recorded runs with: tinyagents runs`,
        EXIT.failed,
      );
    }
    if (values.json === true) {
      for (const observation of observations) io.stdout.write(`${JSON.stringify(observation)}\n`);
    } else {
      io.stdout.write(renderTimeline(observations));
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
