import { TinyAgentsError } from "@tinyagents/inference";

/**
 * `conflict`: a paused run or checkpoint of `runId` was claimed by someone else first (or was
 * never stored). Exactly one of several concurrent resumers gets the record; the others get this.
 */
export function claimConflict(
  runId: string,
  what: "paused run" | "checkpoint",
  where: string,
): TinyAgentsError {
  return new TinyAgentsError(
    "conflict",
    `${what} "${runId}" is not available in ${where}: another process claimed it first (or it was never saved); ` +
      "only one resumer may continue a run — check `tinyagents runs` / the status store for who owns it",
    { details: { runId, what, where } },
  );
}

/**
 * `conflict`: a second writer of one run tree's journal stream. Offsets of a run tree only grow;
 * an append whose first offset is not past the stored last one means two processes are emitting
 * the same run tree (two resumers, or a resumer that did not continue the journal's offsets).
 */
export function journalWriterConflict(
  rootRunId: string,
  storedLast: number,
  attempted: number,
): TinyAgentsError {
  return new TinyAgentsError(
    "conflict",
    `journal of run tree "${rootRunId}" already holds offset ${storedLast}; refusing offset ${attempted} ` +
      "from a second writer (start the resumed run's EventSink with continueEventSink, and let one process own a run)",
    { details: { runId: rootRunId, rootRunId, storedLast, attempted } },
  );
}
