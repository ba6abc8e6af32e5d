import type { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { BoundedObservationQueue, type QueuedSinkOptions } from "./bounded-queue.js";
import type { HarnessEventJournal } from "./event-journal.js";
import type { ObservationSink } from "./sink.js";

/**
 * Write-through from an event sink to a HarnessEventJournal. `write` only enqueues (the run
 * never waits for storage); a background drain appends batches in emission order. The queue is
 * bounded (`maxQueue`, default 10,000): when storage falls behind, new observations are dropped
 * and the loss is reported as a `journal.dropped` event on `options.events` (and to `onDrop`)
 * as soon as there is room — it is never silent. `flush()` waits until everything written so
 * far is in the journal.
 */
export class JournalSink implements ObservationSink {
  readonly journal: HarnessEventJournal;
  private readonly queue: BoundedObservationQueue;

  constructor(journal: HarnessEventJournal, options: QueuedSinkOptions = {}) {
    this.journal = journal;
    this.queue = new BoundedObservationQueue("journal", (batch) => journal.appendMany(batch), options);
  }

  write(observation: AgentObservation): void {
    this.queue.push(observation);
  }

  /** Observations dropped so far (queue overflow or failed writes). */
  get dropped(): number {
    return this.queue.dropped;
  }

  /** Observations waiting to be written (callers may use it for back-pressure). */
  get queued(): number {
    return this.queue.queued;
  }

  flush(): Promise<void> {
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
    return this.queue.flush();
  }
}
