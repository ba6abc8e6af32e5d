import { TinyAgentsError } from "@tinyagents/inference";
import type { EventSink } from "../events/event-sink.js";
import { addRecordKeeper } from "../events/record-keepers.js";
import type { DropReport } from "./bounded-queue.js";
import type { JournalDeltas } from "./delta-coalescer.js";
import { DeltaLane } from "./delta-lane.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { FanOutSink } from "./fan-out-sink.js";
import { type JournalEvents, journalEventsOption } from "./journal-events.js";
import { JournalSink } from "./journal-sink.js";
import { projectionOnlyFilter } from "./projection-only-events.js";
import type { ProjectionSet } from "./projection-set.js";
import { ProjectionSink } from "./projection-sink.js";
import { RawDeltaTexts } from "./raw-delta-texts.js";
import { RedactingSink } from "./redacting-sink.js";
import { type RedactionOptions, Redactor } from "./redaction.js";
import { ReplayReconcilingJournal } from "./replay-reconciling-journal.js";
import type { ObservationSink } from "./sink.js";
import type { HarnessStatusStore } from "./status-store.js";

/** What to attach to an event sink. Everything is optional. */
export interface ObservabilityOptions {
  /** Observations are appended here through a bounded `JournalSink` (which ones: `journalEvents`). */
  journal?: HarnessEventJournal;
  /** Each run's latest status is saved here whenever it changes. */
  statusStore?: HarnessStatusStore;
  /**
   * Secret scrubbing in front of the journal, the status store and `sinks`: built-in rules by
   * default, extended by these options; `false` turns it off.
   */
  redact?: RedactionOptions | false;
  /** More sinks (a `JsonlSink`, an exporter, ...), fed after redaction. */
  sinks?: readonly ObservationSink[];
  /**
   * How the journal stores streamed model deltas: `"coalesce"` (default: the first delta of each
   * call, then one record with the rest of its text) or `"all"` (one record per delta, batched).
   */
  journalDeltas?: JournalDeltas;
  /**
   * Which events the journal stores: `"essential"` (default: what replay, the inspector,
   * projections and exporters read; not `state.updated`, the `middleware.started` /
   * `middleware.completed` brackets, `budget.reserved` / `budget.reconciled` nor a default
   * `route.selected`) or `"all"` (the default for
   * an engine's `ReplayReconcilingJournal`, which matches replayed events against the stored
   * stream). Projections, the status store and `sinks` see every event either way. See
   * {@link JournalEvents}.
   */
  journalEvents?: JournalEvents;
  /** Journal queue bound (default 10,000) and batch size (default 500). */
  maxQueue?: number;
  /**
   * What the journal queue does when full (see `QueuedSinkOptions.overflow`): `"drop"` (default,
   * reported as `journal.dropped`) or `"wait"` — keep every observation and await
   * `handle.journalSink.drain()` between steps for back-pressure (the engine adapters do).
   */
  journalOverflow?: "drop" | "wait";
  batchSize?: number;
  /** Journal drops (also emitted as `journal.dropped` events). */
  onDrop?: (report: DropReport) => void;
  /** Storage failures of the journal or status store. */
  onError?: (error: unknown) => void;
}

/** A live observability attachment. */
export interface ObservabilityHandle {
  /** Live projections (latest status, usage and cost roll-ups, timing) of everything on the sink. */
  readonly projections: ProjectionSet;
  /** The journal writer, when a journal was given (its `dropped` count is useful in tests). */
  readonly journalSink: JournalSink | undefined;
  /**
   * Wait until every observation so far is journaled and every status change saved: from then
   * on they are acknowledged (durable as far as the backend is). Write a checkpoint only after
   * the flush that covers its events. Rejects with a `storage` error when a journal or status
   * write failed since the previous flush (those observations are NOT acknowledged), so a
   * durable run (`durability.flush`) fails loudly instead of checkpointing past lost events.
   */
  flush(): Promise<void>;
  /** Stop listening (does not flush). */
  detach(): void;
  /**
   * Flush, detach, then close every sink of the pipeline (a `JsonlSink` in `sinks` releases its
   * file handle). The journal and status store themselves stay open: they belong to the caller.
   * Never rejects for a failed write: those went to `onError`.
   */
  close(): Promise<void>;
}

/**
 * Attach a journal, a status store, projections and extra sinks to an event sink — the whole
 * observability pipeline in one call, without touching the harness:
 *
 * ```ts
 * const events = new EventSink(runId);
 * const obs = attachObservability(events, { journal, statusStore });
 * await agent.run(input, { runId, events });
 * await obs.flush();
 * ```
 *
 * Sub-agents share their parent's event sink, so they are observed too, with correct lineage.
 * Pipeline: event sink -> RedactingSink -> FanOut[ProjectionSink(status store), JournalSink, ...sinks];
 * without extra sinks, bookkeeping events the journal does not store (middleware brackets, ...)
 * go to the projections alone, which read nothing of their payload (see `projectionOnlyFilter`),
 * and a streamed delta that only extends its call's pending journal merge has its text redacted
 * and appended to the merge and its record given to the projections (see `DeltaLane`).
 * Drops are reported as `journal.dropped` events on the same sink. A top-level run on `events`
 * resolves once its journal records and status saves are written, and its result carries
 * `recordsLost` when some of them could not be (see `RecordsLost`).
 */
export function attachObservability(
  events: EventSink,
  options: ObservabilityOptions = {},
): ObservabilityHandle {
  const onError = options.onError ?? (() => {});
  // The first journal or status write failure since the last flush: that flush must not
  // acknowledge what was lost (other sinks' failures, an exporter down, do not count).
  let lost: unknown;
  // Running totals for the runs on this sink (`result.recordsLost`): never reset by a flush.
  const totals = { status: 0, errors: 0, lastError: undefined as unknown };
  const saveFailed = (error: unknown) => {
    lost ??= error;
    totals.errors++;
    totals.lastError = error;
    onError(error);
  };
  const redactor = options.redact === false ? undefined : new Redactor(options.redact ?? {});
  // The raw text of the deltas redaction changed, for the journal's merges alone (see RawDeltaTexts).
  const rawDeltaTexts = new RawDeltaTexts();
  const projectionSink = new ProjectionSink({
    onError: (error) => {
      totals.status++;
      saveFailed(error);
    },
    ...(options.statusStore === undefined ? {} : { statusStore: options.statusStore }),
  });
  // An engine's reconciling journal recognizes a re-execution's replayed events by the stored
  // stream, bookkeeping events included: it gets every event unless told otherwise.
  const journalEvents =
    options.journal === undefined
      ? undefined
      : journalEventsOption(
          options.journalEvents,
          options.journal instanceof ReplayReconcilingJournal ? "all" : "essential",
        );
  const journalSink =
    options.journal === undefined
      ? undefined
      : new JournalSink(options.journal, {
          events,
          onError: saveFailed,
          ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
          ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
          ...(options.journalOverflow === undefined ? {} : { overflow: options.journalOverflow }),
          ...(options.onDrop === undefined ? {} : { onDrop: options.onDrop }),
          ...(options.journalDeltas === undefined ? {} : { deltas: options.journalDeltas }),
          journalEvents: journalEvents ?? "essential",
          ...(redactor === undefined ? {} : { redactor, rawDeltaTexts }),
        });
  const targets: ObservationSink[] = [projectionSink];
  if (journalSink !== undefined) targets.push(journalSink);
  targets.push(...(options.sinks ?? []));
  const fanOut = new FanOutSink(targets, { onError });
  const pipeline: ObservationSink =
    redactor === undefined ? fanOut : new RedactingSink(fanOut, redactor, rawDeltaTexts);
  // Sinks built without an event sink of their own report their drops on this pipeline's.
  const detachReporting = (options.sinks ?? []).map((sink) => sink.attachReporting?.(events, onError));
  const projectionOnly = projectionOnlyFilter({
    sinks: options.sinks?.length ?? 0,
    journal: journalEvents,
    redactor,
  });
  // Most deltas of a streamed response only extend a journal merge (see DeltaLane).
  const lane =
    journalSink !== undefined &&
    redactor !== undefined &&
    (options.sinks?.length ?? 0) === 0 &&
    (options.journalDeltas ?? "coalesce") === "coalesce"
      ? new DeltaLane(events.streamId, redactor, projectionSink, journalSink, onError)
      : undefined;
  const subscription = events.subscribe(
    projectionOnly === undefined
      ? (record) => {
          if (!lane?.take(record)) pipeline.write(record);
        }
      : (record) => {
          if (lane?.take(record)) return;
          if (!projectionOnly(record)) pipeline.write(record);
          else {
            try {
              projectionSink.write(record);
            } catch (error) {
              onError(error);
            }
          }
        },
  );
  // A top-level run on `events` waits for the journal and status saves (not for exporters in
  // `sinks`) before it resolves, and reports what they lost (see `RecordsLost`).
  const removeKeeper = addRecordKeeper(events, {
    settle: async () => {
      await Promise.all([projectionSink.flush(), journalSink?.flush()]);
      await journalSink?.flush(); // a drop report emitted by the first flush
    },
    losses: () => ({ journal: journalSink?.dropped ?? 0, ...totals }),
  });
  const unsubscribe = () => {
    subscription();
    removeKeeper();
    for (const detach of detachReporting) detach?.();
  };
  const drain = async () => {
    await fanOut.flush();
    await fanOut.flush(); // a drop report emitted during the first flush is journaled by the second
  };
  const flush = async () => {
    await drain();
    if (lost === undefined) return;
    const error = lost;
    lost = undefined;
    throw TinyAgentsError.isInstance(error)
      ? error
      : new TinyAgentsError("storage", `observations or status changes were not saved: ${String(error)}`, {
          cause: error,
        });
  };
  return {
    projections: projectionSink.projections,
    journalSink,
    flush,
    detach: unsubscribe,
    close: async () => {
      await drain();
      unsubscribe();
      await pipeline.close?.();
    },
  };
}
