import { type HarnessRunStatus, superviseRuns } from "@tinyagents/harness";
import { isStale, reapCutoff } from "@tinyagents/harness/durability";
import { COMMON_OPTIONS, parseCommandArgs, positiveInt } from "../core/args.js";
import type { CliIo } from "../core/cli-io.js";
import { type CliStore, openCliStore } from "../core/cli-store.js";
import { EXIT } from "../core/exit-codes.js";
import { resolveDbPath } from "../core/paths.js";
import { formatCost, formatDuration, formatTimestamp, formatTokenTotal } from "../render/format.js";
import { newestRuns } from "../ui/newest-runs.js";

/**
 * `runs --stale` / `runs --reap`: find (and repair) runs whose process died — status records
 * whose lease ended, and checkpointed runs whose durable record's lease lapsed. `--reap` marks
 * the checkpointed ones failed through the supervisor (a fenced take: their dead owner can write
 * nothing more), then reaps the remaining status records.
 */
async function staleRuns(
  store: CliStore,
  io: CliIo,
  options: { olderThanMs: number; reap: boolean; json: boolean },
): Promise<number> {
  const now = Date.now();
  const cutoff = reapCutoff({ olderThanMs: options.olderThanMs, now });
  const checkpoints = store.checkpoints;
  const dead = (await checkpoints.liveRecords(now)).filter(
    (r) => r.state === "running" && r.parentRunId === undefined && r.leaseUntil < cutoff,
  );
  let found: HarnessRunStatus[];
  if (options.reap) {
    await superviseRuns({
      store: checkpoints,
      unknownAgent: "reap",
      graceMs: options.olderThanMs,
      statusStore: store.statusStore,
      ownerId: `cli-${process.pid}`,
    });
    const reapedByRecord = await Promise.all(dead.map((r) => store.statusStore.get(r.runId)));
    found = [
      ...reapedByRecord.filter((s): s is HarnessRunStatus => s !== undefined),
      ...(await store.statusStore.reapStale({ olderThanMs: options.olderThanMs, now })),
    ];
  } else found = (await store.statusStore.list({ active: true })).filter((s) => isStale(s, cutoff));
  const withoutStatus = dead.filter((r) => !found.some((s) => s.runId === r.runId));
  if (found.length === 0 && withoutStatus.length === 0) {
    io.stdout.write(
      `no stale runs in ${store.file} (older than ${options.olderThanMs} ms past their lease)\n`,
    );
    return EXIT.ok;
  }
  for (const status of found) {
    if (options.json) {
      io.stdout.write(`${JSON.stringify(status)}\n`);
      continue;
    }
    const last = status.heartbeatAt ?? status.updatedAt;
    io.stdout.write(
      `${status.runId}  ${options.reap ? "reaped: failed (abandoned)" : "stale: running"}  ` +
        `owner ${status.ownerId ?? "unknown"}  last sign of life ${formatTimestamp(last)}\n`,
    );
  }
  for (const record of withoutStatus) {
    const summary = { runId: record.runId, ownerId: record.ownerId, leaseUntil: record.leaseUntil };
    if (options.json) io.stdout.write(`${JSON.stringify({ ...summary, checkpointed: true })}\n`);
    else
      io.stdout.write(
        `${record.runId}  ${options.reap ? "reaped: failed (abandoned)" : "stale: running (checkpointed)"}  ` +
          `owner ${record.ownerId}  lease ended ${formatTimestamp(record.leaseUntil)}\n`,
      );
  }
  if (!options.reap)
    io.stdout.write(
      `${found.length + withoutStatus.length} stale run(s); repair them with: tinyagents runs --reap ` +
        "(or continue a checkpointed one with: tinyagents recover <run-id>)\n",
    );
  return EXIT.ok;
}

/**
 * The `limit` most recent top-level runs (of `threadId` when given), oldest first: read newest
 * first from the status store's (start, run id) order a page at a time, never the whole store.
 */
async function latestRuns(store: CliStore, limit: number, threadId?: string): Promise<HarnessRunStatus[]> {
  const found: HarnessRunStatus[] = [];
  let after: { startedAt: number; runId: string } | undefined;
  const page = Math.max(50, limit * 2);
  for (;;) {
    const batch = await newestRuns(store.statusStore, {
      limit: page,
      ...(threadId === undefined ? {} : { threadId }),
      ...(after === undefined ? {} : { after }),
    });
    for (const status of batch) {
      after = { startedAt: status.startedAt, runId: status.runId };
      if (status.parentRunId !== undefined || status.component === "model_call") continue;
      found.push(status);
      if (found.length === limit) return found.reverse();
    }
    if (batch.length < page) return found.reverse();
  }
}

/** The `--help` text of `tinyagents runs`. */
export const RUNS_HELP = `tinyagents runs [--thread ID] [--limit N] [--json] [--stale | --reap] [--older-than MS]

List recorded runs, newest last: run id, start time, status, model, calls, tokens, cost and the
start of the prompt. Show one with \`tinyagents show <run-id>\`.

A run whose process died (killed, crashed, machine lost) stays "running" until it is reaped:
--stale lists the runs still marked running whose lease (renewed by heartbeats while the run is
alive) ended more than --older-than ago, and the checkpointed runs whose durable record's lease
lapsed; --reap marks them failed with error code "abandoned" (a checkpointed run through a
fenced take, so its dead owner can write nothing more). A checkpointed run can be continued
instead with the library's agent.recover(runId, options) or superviseRuns.

Options:
      --thread ID   only the runs of this thread
      --limit N     the N most recent (default 20)
      --json        one JSON object per line (status record + run record)
      --stale       list runs whose owner stopped heartbeating (nothing is changed)
      --reap        mark those runs failed ("abandoned") and list them
      --older-than MS  grace past the lease before a run counts as stale (default 60000)
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
    stale: { type: "boolean" },
    reap: { type: "boolean" },
    "older-than": { type: "string" },
  });
  if (values.help === true) {
    io.stdout.write(RUNS_HELP);
    return EXIT.ok;
  }
  const limit = positiveInt("limit", values.limit) ?? 20;
  const store = await openCliStore(resolveDbPath(io.env, io.cwd, values.db), io.env, (warning) =>
    io.stderr.write(`warning: ${warning.message}\n`),
  );
  try {
    if (values.stale === true || values.reap === true) {
      const olderThanMs =
        values["older-than"] === undefined ? 60_000 : (positiveInt("older-than", values["older-than"]) ?? 0);
      return await staleRuns(store, io, {
        olderThanMs,
        reap: values.reap === true,
        json: values.json === true,
      });
    }
    const top = await latestRuns(store, limit, values.thread);
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
      const prompt =
        record?.captureContent === false
          ? "(content not captured)"
          : `"${(record?.prompt ?? "").replace(/\s+/g, " ").slice(0, 60)}"`;
      io.stdout.write(
        `${status.runId}  ${formatTimestamp(status.startedAt)}  ${status.status.padEnd(9)}${took}  ${record?.model ?? "?"}  ` +
          `${status.modelCalls} model / ${status.toolCalls} tool calls  ${formatTokenTotal(status.usage.totalTokens, { reported: status.usage.calls, made: status.modelCalls, unknown: status.usage.unknown === true })}  ${formatCost(status.cost, status)}` +
          `${status.threadId === undefined ? "" : `  thread ${status.threadId}`}  ${prompt}\n`,
      );
    }
    return EXIT.ok;
  } finally {
    await store.close();
  }
}
