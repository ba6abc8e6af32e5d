import type { HarnessEventJournal } from "@tinyagents/harness";
import { CoalescingJournal } from "@tinyagents/harness/observability";

/**
 * A worker's journal writers: one {@link CoalescingJournal} per writer (`journal` and the
 * `journalWriters` of `dbosAgents`), each writing one merged batch at a time. A run always writes
 * through the same lane (chosen by its run id), so its records stay in order and its run tree
 * has one writer; runs of different lanes do not wait for each other's writes. With one writer
 * this is the single shared CoalescingJournal (every run's events of a turn are one write).
 */
export class JournalLanes {
  private readonly lanes: readonly CoalescingJournal[];

  constructor(writers: readonly HarnessEventJournal[]) {
    this.lanes = writers.map((writer) => new CoalescingJournal(writer));
  }

  /** How many writes may be in flight at once. */
  get size(): number {
    return this.lanes.length;
  }

  /** The lane run `runId` writes through (always the same one for a run id). */
  laneOf(runId: string): CoalescingJournal {
    return this.lanes[laneIndex(runId, this.lanes.length)] as CoalescingJournal;
  }
}

/** A stable spread of run ids over `count` lanes (FNV-1a of the id's UTF-16 code units). */
export function laneIndex(runId: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < runId.length; i++) {
    hash ^= runId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}
