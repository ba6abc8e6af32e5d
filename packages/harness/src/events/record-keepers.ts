import { type ErrorSummary, toTinyAgentsError } from "@tinyagents/inference";
import type { RecordsLost } from "../contracts/records-lost.js";
import type { RunEventSink } from "../contracts/run-event-sink.js";

/** What a record keeper lost so far: running totals, compared before and after a run. */
export interface RecordLossTotals {
  /** Journal observations lost (failed writes, queue overflow). */
  journal: number;
  /** Status saves that failed. */
  status: number;
  /** Storage errors seen, and the last one. */
  errors: number;
  lastError: unknown;
}

/**
 * Something that stores the records of an event sink (the journal and status store of
 * `attachObservability`). A top-level run waits for its keepers to `settle` before it reports
 * its result, and reports what they lost while it ran (`RecordsLost`).
 */
export interface RecordKeeper {
  /** Resolves once everything emitted so far is stored or counted as lost. Never rejects. */
  settle(): Promise<void>;
  /** Running loss totals since the keeper was attached. */
  losses(): RecordLossTotals;
}

/** See {@link watchRecords}. */
export interface RecordsWatch {
  lost(): Promise<RecordsLost | undefined>;
}

// Keyed by sink, outside `EventSink` itself: most sinks have no keeper and pay nothing.
const keepers = new WeakMap<RunEventSink, Set<RecordKeeper>>();

/** Register `keeper` as storing the records of `events`; returns a function that removes it. */
export function addRecordKeeper(events: RunEventSink, keeper: RecordKeeper): () => void {
  let set = keepers.get(events);
  if (set === undefined) {
    set = new Set();
    keepers.set(events, set);
  }
  set.add(keeper);
  return () => {
    keepers.get(events)?.delete(keeper);
  };
}

/**
 * A run's watch over the keepers of its event sink, taken when it starts: `lost()` settles them
 * and says what they lost since (undefined: nothing). `undefined` when the sink has no keeper.
 */
export function watchRecords(events: RunEventSink): RecordsWatch | undefined {
  const set = keepers.get(events);
  if (set === undefined || set.size === 0) return undefined;
  const watched = [...set].map((keeper) => ({ keeper, before: keeper.losses() }));
  return {
    lost: async () => {
      // One keeper (one `attachObservability` per run, the common case): no `Promise.all`.
      if (watched.length === 1) await (watched[0] as { keeper: RecordKeeper }).keeper.settle();
      else await Promise.all(watched.map(({ keeper }) => keeper.settle()));
      let journal = 0;
      let status = 0;
      let error: ErrorSummary | undefined;
      for (const { keeper, before } of watched) {
        const now = keeper.losses();
        journal += now.journal - before.journal;
        status += now.status - before.status;
        if (now.errors > before.errors) error = toTinyAgentsError(now.lastError, "storage").toJSON();
      }
      if (journal === 0 && status === 0 && error === undefined) return undefined;
      return error === undefined ? { journal, status } : { journal, status, error };
    },
  };
}
