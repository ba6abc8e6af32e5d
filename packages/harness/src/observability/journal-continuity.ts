import type { Clock } from "@tinyagents/inference";
import { EventSink } from "../events/event-sink.js";
import type { HarnessEventJournal } from "./event-journal.js";

/**
 * The offset the next event of run tree `rootRunId` must get so the journal's offsets (and
 * event ids) stay unique and strictly increasing: one past the last stored record, 0 for a tree
 * with no journal. Uses the journal's `lastOffset` when it has one, else reads the whole stream.
 */
export async function journalNextOffset(journal: HarnessEventJournal, rootRunId: string): Promise<number> {
  if (journal.lastOffset !== undefined) {
    const last = await journal.lastOffset(rootRunId);
    return last === undefined ? 0 : last + 1;
  }
  let next = 0;
  for (const observation of await journal.read(rootRunId)) next = Math.max(next, observation.offset + 1);
  return next;
}

/**
 * An EventSink for run tree `rootRunId` that continues its journal: the first event gets the
 * offset after the journal's last record. Pass it (as `options.events`) to `resume` or
 * `recover` in a new process, attach the same journal to it, and the tree's stream reads as one.
 */
export async function continueEventSink(
  journal: HarnessEventJournal,
  rootRunId: string,
  options: { clock?: Clock; onListenerError?: (error: unknown) => void } = {},
): Promise<EventSink> {
  const startOffset = await journalNextOffset(journal, rootRunId);
  return new EventSink(rootRunId, { ...options, startOffset });
}
