import { type JsonValue, TinyAgentsError } from "@tinyagents/inference";
import type { EventSink } from "../events/event-sink.js";
import { addRecordKeeper, type RecordKeeper, type RecordLossTotals } from "../events/record-keepers.js";
import type { AgentObservation } from "./agent-observation.js";
import type { DropReport } from "./bounded-queue.js";
import type { JournalDeltas } from "./delta-coalescer.js";
import { DeltaLane } from "./delta-lane.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { type JournalEvents, journalEventsOption } from "./journal-events.js";
import { JournalSink } from "./journal-sink.js";
import { projectionOnlyFilter } from "./projection-only-events.js";
import type { ProjectionSet } from "./projection-set.js";
import { ProjectionSink } from "./projection-sink.js";
import { RawDeltaTexts } from "./raw-delta-texts.js";
import { type RedactionOptions, Redactor } from "./redaction.js";
import { DeltaRedaction } from "./redaction-delta.js";
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
   * Never rejects for a failed write: those went to `onError`. Events emitted after the call
   * are not observed: with nothing left to write, the pipeline detaches at the call.
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
 * Pipeline: event sink -> redaction -> ProjectionSink(status store), JournalSink, ...sinks (in order);
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
  return new ObservabilityAttachment(events, options);
}

/** The redactor of pipelines without redaction options: its state is all derived from them. */
let defaultRedactor: { redactor: Redactor; deltas: DeltaRedaction } | undefined;

/** The redactor of `redact` and its per-delta fast path (shared when `redact` is not given). */
function redactionFor(
  redact: RedactionOptions | false | undefined,
): { redactor: Redactor; deltas: DeltaRedaction } | undefined {
  if (redact === false) return undefined;
  if (redact !== undefined) {
    const redactor = new Redactor(redact);
    return { redactor, deltas: new DeltaRedaction(redactor) };
  }
  if (defaultRedactor === undefined) {
    const redactor = new Redactor({});
    defaultRedactor = { redactor, deltas: new DeltaRedaction(redactor) };
  }
  return defaultRedactor;
}

/**
 * One `attachObservability` pipeline. A CLI or server attaches one per run, and it lives as long
 * as the run: it is one object with methods (not a closure per step of the pipeline), it
 * redacts and fans out itself (no `RedactingSink` / `FanOutSink` layers), and the redactor of
 * the default options is shared by every pipeline.
 */
class ObservabilityAttachment implements ObservabilityHandle, RecordKeeper {
  readonly projections: ProjectionSet;
  readonly journalSink: JournalSink | undefined;
  private readonly projectionSink: ProjectionSink;
  /** Where redacted observations go: the projections, the journal, then `options.sinks`. */
  private readonly targets: ObservationSink[];
  private readonly redaction: { redactor: Redactor; deltas: DeltaRedaction } | undefined;
  /**
   * The raw text of the deltas redaction changed, for this pipeline's journal merges alone (see
   * `RawDeltaTexts`); set when redaction is on.
   */
  private readonly rawDeltaTexts: RawDeltaTexts | undefined;
  private readonly onError: (error: unknown) => void;
  /** Bookkeeping events only the projections read (see `projectionOnlyFilter`). */
  private readonly projectionOnly: ((observation: AgentObservation) => boolean) | undefined;
  /**
   * Whether streamed deltas may take the `DeltaLane` (a journal coalescing deltas, redaction on,
   * no extra sinks); the lane itself is built at the first delta (most runs stream none).
   */
  private readonly laneAllowed: boolean;
  private lane: DeltaLane | undefined;
  private readonly streamId: string;
  private readonly detachReporting: ((() => void) | undefined)[] | undefined;
  private readonly unsubscribeEvents: () => void;
  private readonly removeKeeper: () => void;
  // The first journal or status write failure since the last flush: that flush must not
  // acknowledge what was lost (other sinks' failures, an exporter down, do not count).
  private lost: unknown;
  // Running totals for the runs on this sink (`result.recordsLost`): never reset by a flush.
  private statusLost = 0;
  private errors = 0;
  private lastError: unknown;

  constructor(events: EventSink, options: ObservabilityOptions) {
    const onError = options.onError ?? ignoreError;
    this.onError = onError;
    const redaction = redactionFor(options.redact);
    this.redaction = redaction;
    // Only a journal that coalesces deltas reads raw texts (to redact a merge): without one, no
    // raw text is kept beside the redacted records the other sinks may hold.
    const rawDeltaTexts =
      redaction === undefined ||
      options.journal === undefined ||
      (options.journalDeltas ?? "coalesce") !== "coalesce"
        ? undefined
        : new RawDeltaTexts();
    this.rawDeltaTexts = rawDeltaTexts;
    const saveFailed = (error: unknown) => this.saveFailed(error);
    this.projectionSink = new ProjectionSink({
      onError: (error) => {
        this.statusLost++;
        this.saveFailed(error);
      },
      ...(options.statusStore === undefined ? {} : { statusStore: options.statusStore }),
    });
    this.projections = this.projectionSink.projections;
    // An engine's reconciling journal recognizes a re-execution's replayed events by the stored
    // stream, bookkeeping events included: it gets every event unless told otherwise.
    const journalEvents =
      options.journal === undefined
        ? undefined
        : journalEventsOption(
            options.journalEvents,
            options.journal instanceof ReplayReconcilingJournal ? "all" : "essential",
          );
    this.journalSink =
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
            ...(redaction === undefined || rawDeltaTexts === undefined
              ? {}
              : { redactor: redaction.redactor, rawDeltaTexts }),
          });
    this.targets = [this.projectionSink];
    if (this.journalSink !== undefined) this.targets.push(this.journalSink);
    const sinks = options.sinks ?? [];
    for (const sink of sinks) this.targets.push(sink);
    // Sinks built without an event sink of their own report their drops on this pipeline's.
    this.detachReporting =
      sinks.length === 0 ? undefined : sinks.map((sink) => sink.attachReporting?.(events, onError));
    this.projectionOnly = projectionOnlyFilter({
      sinks: sinks.length,
      journal: journalEvents,
      redactor: redaction?.redactor,
      idPrefix: `${events.streamId}-evt-`,
    });
    // Most deltas of a streamed response only extend a journal merge (see DeltaLane).
    this.laneAllowed =
      this.journalSink !== undefined &&
      redaction !== undefined &&
      sinks.length === 0 &&
      (options.journalDeltas ?? "coalesce") === "coalesce";
    this.streamId = events.streamId;
    this.unsubscribeEvents = events.subscribe((record) => this.observe(record));
    // A top-level run on `events` waits for the journal and status saves (not for exporters in
    // `sinks`) before it resolves, and reports what they lost (see `RecordsLost`).
    this.removeKeeper = addRecordKeeper(events, this);
  }

  /** One observation from the event sink: redacted, then to every target in order. */
  private observe(record: AgentObservation): void {
    if (this.laneAllowed && this.takeDelta(record)) return;
    if (this.projectionOnly?.(record) === true) {
      try {
        this.projectionSink.write(record);
      } catch (error) {
        this.onError(error);
      }
      return;
    }
    const redaction = this.redaction;
    const observation =
      redaction === undefined
        ? record
        : (redaction.deltas.redact(record) ??
          (redaction.redactor.redact(record as unknown as JsonValue) as unknown as AgentObservation));
    if (observation !== record) this.noteRawDelta(record, observation);
    for (const sink of this.targets) {
      try {
        sink.write(observation);
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** As a `RedactingSink` with raw texts does: note the raw text of a delta redaction changed. */
  private noteRawDelta(record: AgentObservation, redacted: AgentObservation): void {
    const event = record.event;
    if (
      this.rawDeltaTexts !== undefined &&
      (event.type === "model.text_delta" ||
        // A signed reasoning delta is journaled as its own record, never merged.
        (event.type === "model.reasoning_delta" && event.signature === undefined)) &&
      (redacted.event as typeof event).text !== event.text
    )
      this.rawDeltaTexts.note(redacted, event.text);
  }

  /** The `DeltaLane` for a text or reasoning delta (built at the first one); false: the full path. */
  private takeDelta(record: AgentObservation): boolean {
    const type = record.event.type;
    if (type !== "model.text_delta" && type !== "model.reasoning_delta") return false;
    if (this.lane === undefined) {
      this.lane = new DeltaLane(
        this.streamId,
        (this.redaction as { redactor: Redactor }).redactor,
        this.projectionSink,
        this.journalSink as JournalSink,
        this.onError,
      );
    }
    return this.lane.take(record);
  }

  private saveFailed(error: unknown): void {
    this.lost ??= error;
    this.errors++;
    this.lastError = error;
    this.onError(error);
  }

  /**
   * Whether a flush of this pipeline has nothing to wait for: no status save and no journal
   * write queued or in flight, and no extra sinks (whose writes it cannot see). A run's
   * `obs.close()` after the run waited for its records (`settle`) is such a flush: it detaches
   * without a promise chain.
   */
  private idle(): boolean {
    return (
      this.detachReporting === undefined &&
      this.projectionSink.idle &&
      (this.journalSink === undefined || this.journalSink.idle)
    );
  }

  /** RecordKeeper: the journal and status saves so far are written (or counted lost). */
  settle(): Promise<void> {
    return this.idle() ? DONE : this.settleWrites();
  }

  private async settleWrites(): Promise<void> {
    // Both flushes start now (a journal flush releases its pending delta merges at the call)
    // and are awaited one after the other (no `Promise.all` per run). Either rejects when the
    // user's `onError` throws: the journal's is awaited even when the status flush threw first,
    // so neither rejection is left unhandled.
    const journal = this.journalSink;
    const journaled = journal?.flush();
    try {
      await this.projectionSink.flush();
    } finally {
      await journaled;
    }
    if (journal !== undefined && !journal.idle) await journal.flush(); // a drop report emitted by the first flush
  }

  /**
   * Flush the projection and journal sinks, both started now (a journal flush releases its
   * pending delta merges at the call). One of them busy: its flush alone, no `Promise.all`.
   */
  private flushOwn(): Promise<unknown> {
    const journal = this.journalSink;
    if (journal === undefined || journal.idle) return this.projectionSink.flush();
    if (this.projectionSink.idle) return journal.flush();
    return Promise.all([this.projectionSink.flush(), journal.flush()]);
  }

  /** RecordKeeper: running loss totals. */
  losses(): RecordLossTotals {
    return {
      journal: this.journalSink?.dropped ?? 0,
      status: this.statusLost,
      errors: this.errors,
      lastError: this.lastError,
    };
  }

  flush(): Promise<void> {
    if (!this.idle()) return this.flushWrites();
    const error = this.takeLost();
    return error === undefined ? DONE : Promise.reject(error);
  }

  private async flushWrites(): Promise<void> {
    await this.drain();
    const error = this.takeLost();
    if (error !== undefined) throw error;
  }

  /** The first journal or status write failure since the last flush, as a `storage` error; cleared. */
  private takeLost(): unknown {
    if (this.lost === undefined) return undefined;
    const error = this.lost;
    this.lost = undefined;
    return TinyAgentsError.isInstance(error)
      ? error
      : new TinyAgentsError("storage", `observations or status changes were not saved: ${String(error)}`, {
          cause: error,
        });
  }

  detach(): void {
    this.unsubscribeEvents();
    this.removeKeeper();
    if (this.detachReporting !== undefined) for (const detach of this.detachReporting) detach?.();
  }

  close(): Promise<void> {
    if (!this.idle()) return this.closeAfterDrain();
    // Nothing to wait for, and no sink of its own to close (the projection and journal sinks'
    // `close` is a flush): detach and done.
    this.detach();
    return DONE;
  }

  private async closeAfterDrain(): Promise<void> {
    await this.drain();
    this.detach();
    await Promise.all(this.targets.map((sink) => sink.close?.()));
  }

  private async drain(): Promise<void> {
    await this.flushTargets();
    await this.flushTargets(); // a drop report emitted during the first flush is journaled by the second
  }

  /** Flush every target, all started now (`detachReporting` is set when there are extra sinks). */
  private async flushTargets(): Promise<void> {
    if (this.detachReporting === undefined) await this.flushOwn();
    else await Promise.all(this.targets.map((sink) => sink.flush?.()));
  }
}

function ignoreError(): void {}

/** What an idle pipeline's `settle`, `flush` and `close` return: nothing to wait for. */
const DONE: Promise<void> = Promise.resolve();
