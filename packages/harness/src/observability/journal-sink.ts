import { validationError } from "@tinyagents/inference";
import type { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { BoundedObservationQueue, type QueuedSinkOptions } from "./bounded-queue.js";
import { DeltaCoalescer, type JournalDeltas, type MergeableType } from "./delta-coalescer.js";
import type { HarnessEventJournal } from "./event-journal.js";
import { isEssentialForJournal, type JournalEvents, journalEventsOption } from "./journal-events.js";
import type { RawDeltaTexts } from "./raw-delta-texts.js";
import type { Redactor } from "./redaction.js";
import type { ObservationSink } from "./sink.js";

/** Options of a {@link JournalSink}. */
export interface JournalSinkOptions extends QueuedSinkOptions {
  /** How streamed model deltas are stored (default `"coalesce"`; see {@link JournalDeltas}). */
  deltas?: JournalDeltas;
  /**
   * Which events are stored (default `"all"` here; `attachObservability` defaults to
   * `"essential"`; see {@link JournalEvents}).
   */
  journalEvents?: JournalEvents;
  /**
   * The pipeline's redactor (`attachObservability` passes it): a merged delta record's text is
   * redacted again as a whole, from its deltas' raw text (see `rawDeltaTexts`), with the end of
   * its call's earlier text in front, so a secret the model streamed across several deltas —
   * which no single delta matches — is not journaled. Observations reaching `write` must be
   * redacted already.
   */
  redactor?: Redactor;
  /**
   * Where the pipeline's `RedactingSink` notes the raw text of the deltas it changed
   * (`attachObservability` passes it): merges are redacted from the raw texts, so a delta that
   * completes a secret alone does not leave the secret's rest, in the next deltas, unredacted.
   * Without it, a merge is built from the redacted delta texts.
   */
  rawDeltaTexts?: RawDeltaTexts;
}

/**
 * Write-behind from an event sink to a HarnessEventJournal. `write` only enqueues (the run
 * never waits for storage); a background drain appends batches in emission order, one batch
 * per event-loop turn (group commit: one `appendMany`, one SQLite transaction). Streamed deltas
 * are coalesced per model call by default (`deltas`). The queue is
 * bounded (`maxQueue`, default 10,000): when storage falls behind, new observations are dropped
 * and the loss is reported as a `journal.dropped` event on `options.events` (and to `onDrop`)
 * as soon as there is room — it is never silent. With `overflow: "wait"` nothing is dropped: the
 * queue keeps growing and the producer applies back-pressure by awaiting {@link drain} (the
 * engine adapters do, between steps).
 *
 * Acknowledged: an observation is acknowledged — stored as durably as the journal stores
 * anything — once a `flush()` (or `close()`) called after it was written has resolved. Until
 * then it may be lost in a crash: the crash-loss window is what was written since the last
 * completed batch (at most one event-loop turn plus the batch in flight, bounded by `maxQueue`)
 * and, with delta coalescing, the streamed text of model calls still in progress.
 */
export class JournalSink implements ObservationSink {
  readonly journal: HarnessEventJournal;
  private readonly queue: BoundedObservationQueue;
  /** Whether streamed deltas are coalesced (`deltas: "coalesce"`). */
  private readonly coalesce: boolean;
  /**
   * The delta coalescer, created at the first streamed delta: until then it would pass every
   * observation straight through, and most runs' journal sinks (tool loops without streaming)
   * never need its maps.
   */
  private coalescer: DeltaCoalescer | undefined;
  /** What the coalescer is built with (see the options). */
  private readonly redactor: Redactor | undefined;
  private readonly rawDeltaTexts: RawDeltaTexts | undefined;
  /** `queue.push` as a function, for the coalescer (made with it: most sinks never coalesce). */
  private enqueue: ((observation: AgentObservation) => void) | undefined;
  private readonly essentialOnly: boolean;

  constructor(journal: HarnessEventJournal, options: JournalSinkOptions = {}) {
    this.journal = journal;
    this.queue = new BoundedObservationQueue("journal", (batch) => journal.appendMany(batch), options);
    const deltas = options.deltas ?? "coalesce";
    if (deltas !== "coalesce" && deltas !== "all") {
      throw validationError(`JournalSink deltas must be "coalesce" or "all", got ${JSON.stringify(deltas)}`, {
        field: "deltas",
      });
    }
    this.essentialOnly = journalEventsOption(options.journalEvents, "all") === "essential";
    this.coalesce = deltas === "coalesce";
    this.redactor = options.redactor;
    this.rawDeltaTexts = options.rawDeltaTexts;
  }

  write(observation: AgentObservation): void {
    if (this.essentialOnly && !isEssentialForJournal(observation)) return;
    let coalescer = this.coalescer;
    if (coalescer === undefined) {
      if (!this.coalesce || !isDelta(observation)) {
        this.queue.push(observation);
        return;
      }
      coalescer = new DeltaCoalescer(this.redactor, this.rawDeltaTexts);
      this.coalescer = coalescer;
      this.enqueue = (observation) => this.queue.push(observation);
    }
    coalescer.push(observation, this.enqueue as (observation: AgentObservation) => void);
  }

  /**
   * A streamed delta that continues the pending merge of its model call (see
   * `DeltaCoalescer.continueMerge`): only its text is kept (`text` redacted, `raw` before
   * redaction: with a redactor, the merge is redacted from the raw texts when it is released).
   * False when it does not continue one (or deltas are not coalesced): `write` the redacted
   * observation instead.
   */
  continueDelta(runId: string, callId: string, type: MergeableType, text: string, raw = text): boolean {
    return this.coalescer?.continueMerge(runId, callId, type, text, raw) === true;
  }

  /** Observations dropped so far (queue overflow or failed writes). */
  get dropped(): number {
    return this.queue.dropped;
  }

  /** Observations waiting to be written (callers may use it for back-pressure). */
  get queued(): number {
    return this.queue.queued;
  }

  /**
   * Whether a flush has nothing to wait for: nothing queued or being written, and no streamed
   * delta ever coalesced (a sink that coalesced may hold pending merges: not idle).
   */
  get idle(): boolean {
    return this.coalescer === undefined && this.queue.idle;
  }

  /** Resolves once everything written so far (pending delta merges included) is journaled. */
  flush(): Promise<void> {
    const coalescer = this.coalescer;
    if (coalescer !== undefined) coalescer.drain(this.enqueue as (observation: AgentObservation) => void);
    return this.queue.flush();
  }

  /**
   * Back-pressure: resolves once the queue is at most half full. Await it between bursts (for
   * example after each run) and a shared sink under load waits instead of dropping.
   */
  drain(): Promise<void> {
    return this.queue.waitForRoom();
  }

  attachReporting(events: EventSink, onError: (error: unknown) => void): () => void {
    return this.queue.addReporter(events, onError);
  }

  close(): Promise<void> {
    return this.flush();
  }
}

/** A streamed model delta (`model.text_delta`, `model.reasoning_delta`, ...): what the coalescer folds. */
function isDelta(observation: AgentObservation): boolean {
  const type = observation.event.type;
  return type.startsWith("model.") && type.endsWith("_delta");
}
