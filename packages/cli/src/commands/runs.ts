import { COMMON_OPTIONS, parseCommandArgs, positiveInt } from "../args.js";
import type { CliIo } from "../cli-io.js";
import { openCliStore } from "../cli-store.js";
import { EXIT } from "../exit-codes.js";
import { resolveDbPath } from "../paths.js";
import { formatCost, formatDuration, formatTimestamp } from "../render/format.js";

/** The `--help` text of `tinyagents runs`. */
export const RUNS_HELP = `tinyagents runs [--thread ID] [--limit N] [--json]

List recorded runs, newest last: run id, start time, status, model, calls, tokens, cost and the
start of the prompt. Show one with \`tinyagents show <run-id>\`.

Options:
      --thread ID   only the runs of this thread
      --limit N     the N most recent (default 20)
      --json        one JSON object per line (status record + run record)
      --db FILE     the SQLite store (see \`tinyagents run --help\`)
  -h, --help        this help
`;

/** `tinyagents runs`: list top-level runs from the status store. */
export async function runsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs("runs", argv, {
    ...COMMON_OPTIONS,
    thread: { type: "string" },
    limit: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help === true) {
    io.stdout.write(RUNS_HELP);
    return EXIT.ok;
  }
  const limit = positiveInt("limit", values.limit) ?? 20;
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db));
  try {
    const all = await store.statusStore.list(values.thread === undefined ? {} : { threadId: values.thread });
    const top = all.filter((s) => s.parentRunId === undefined && s.component !== "model_call").slice(-limit);
    if (top.length === 0) {
      io.stdout.write(
        values.thread === undefined
          ? `no runs recorded yet in ${store.file}; try: tinyagents run "what time is it in Tokyo?" --tools time\n`
          : `no runs on thread ${values.thread}\n`,
      );
      return EXIT.ok;
    }
    for (const status of top) {
      const record = await store.getRun(status.runId);
      if (values.json === true) {
        io.stdout.write(`${JSON.stringify({ ...status, record: record ?? null })}\n`);
        continue;
      }
      const took =
        status.endedAt === undefined ? "" : ` ${formatDuration(status.endedAt - status.startedAt)}`;
      const prompt = (record?.prompt ?? "").replace(/\s+/g, " ").slice(0, 60);
      io.stdout.write(
        `${status.runId}  ${formatTimestamp(status.startedAt)}  ${status.status.padEnd(9)}${took}  ${record?.model ?? "?"}  ` +
          `${status.modelCalls} model / ${status.toolCalls} tool calls  ${status.usage.totalTokens} tokens  ${formatCost(status.cost, status)}` +
          `${status.threadId === undefined ? "" : `  thread ${status.threadId}`}  "${prompt}"\n`,
      );
    }
    return EXIT.ok;
  } finally {
    store.close();
  }
}
