import type { HarnessRunStatus, HarnessStatusStore } from "@tinyagents/harness";

/** A position in the newest-first order: the last record of the previous page. */
export interface RunCursor {
  startedAt: number;
  runId: string;
}

/** `a` comes after `b` in the newest-first order (older start, or same start and smaller id). */
const olderThan = (a: RunCursor, b: RunCursor): boolean =>
  a.startedAt < b.startedAt || (a.startedAt === b.startedAt && a.runId < b.runId);

/**
 * A page of root runs, newest first, after `after`: `statusStore.list({ order: "newest",
 * rootsOnly, after, limit })`, which the built-in stores answer from an index. A store written
 * before these options (it ignores them) answers oldest first or unfiltered: then the page is
 * made here from its whole list, so the inspector and `tinyagents runs` stay right, only slower.
 */
export async function newestRuns(
  store: HarnessStatusStore,
  query: { limit: number; after?: RunCursor; threadId?: string },
): Promise<HarnessRunStatus[]> {
  const batch = await store.list({
    order: "newest",
    rootsOnly: true,
    limit: query.limit,
    ...(query.after === undefined ? {} : { after: query.after }),
    ...(query.threadId === undefined ? {} : { threadId: query.threadId }),
  });
  const honoured =
    batch.length <= query.limit &&
    batch.every(
      (s, i) =>
        s.rootRunId === s.runId &&
        (query.after === undefined || olderThan(s, query.after)) &&
        (i === 0 || olderThan(s, batch[i - 1] as HarnessRunStatus)),
    );
  if (honoured) return batch;
  const all = await store.list(query.threadId === undefined ? {} : { threadId: query.threadId });
  return all
    .filter((s) => s.rootRunId === s.runId && (query.after === undefined || olderThan(s, query.after)))
    .sort((a, b) => (olderThan(a, b) ? 1 : olderThan(b, a) ? -1 : 0))
    .slice(0, query.limit);
}
