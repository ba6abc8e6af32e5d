import { setTimeout as sleep } from "node:timers/promises";
import type { EventRecord, HarnessEventJournal } from "@tinyagents/harness";

/** Options of `RestateAgentClient.events`. */
export interface EventStreamOptions {
  /** First offset to deliver (default 0). */
  fromOffset?: number;
  /** How often the journal is read while the run is live (default 50 ms). */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * Follow one run's journal: read from `fromOffset`, yield what is new, and poll every `pollMs`
 * until `finished()` says the run is over — then read once more (workers flush a run's events
 * before its workflow returns, so that read is the last) and stop. The journal is keyed by the
 * root run id: a run's own sub-agents (in process) are in the same stream.
 */
export async function* tailJournal(
  journal: HarnessEventJournal,
  runId: string,
  finished: () => Promise<boolean>,
  options: EventStreamOptions,
): AsyncGenerator<EventRecord> {
  let next = options.fromOffset ?? 0;
  const pollMs = options.pollMs ?? 50;
  for (;;) {
    options.signal?.throwIfAborted();
    const done = await finished();
    const batch = await journal.read(runId, { fromOffset: next });
    for (const record of batch) {
      yield record;
      next = record.offset + 1;
    }
    if (done) return;
    if (batch.length === 0)
      await sleep(pollMs, undefined, options.signal === undefined ? {} : { signal: options.signal });
  }
}
