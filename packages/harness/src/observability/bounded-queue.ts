import { TinyAgentsError, validationError } from "@tinyagents/inference";
import type { EventScope, EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";
import { afterThisTurn } from "./next-turn.js";

/** Why observations were lost. */
export type DropReason = "queue_full" | "write_failed";

/** A report of observations a sink lost (also emitted as a `journal.dropped` event). */
export interface DropReport {
  /** Which sink dropped them (`"journal"`, `"jsonl"`, ...). */
  sink: string;
  dropped: number;
  /** Offsets of the first and last dropped observation. */
  fromOffset: number;
  toOffset: number;
  reason: DropReason;
  /** The run of the last dropped observation (the report is emitted on its behalf). */
  scope: EventScope;
}

/** Options shared by the queued sinks. */
export interface QueuedSinkOptions {
  /** Most observations waiting to be written; beyond it new ones are dropped (default 10,000). */
  maxQueue?: number;
  /** Most observations handed to one write (default 500). */
  batchSize?: number;
  /**
   * The event sink to report drops on: a `journal.dropped` event is emitted (once the queue has
   * room again) so the loss itself is observed — and journaled.
   */
  events?: EventSink;
  /** Also told about every drop report. */
  onDrop?: (report: DropReport) => void;
  /** Told about write failures (the lost observations are also reported as drops). */
  onError?: (error: unknown) => void;
  /**
   * What a full queue does with a new observation: `"drop"` (default: count it and report a
   * `journal.dropped`; for pure observability exporters, where losing a record beats slowing the
   * run) or `"wait"` (keep it: the queue may grow past `maxQueue`, and the producer applies
   * back-pressure by awaiting `waitForRoom()` / `JournalSink.drain()` at its next step — what the
   * engine adapters do, so a slow journal slows runs down instead of losing their events).
   */
  overflow?: "drop" | "wait";
}

/** Drops of one reason not yet reported: how many, which offsets, and the run they belong to. */
export interface PendingDrop {
  count: number;
  from: number;
  to: number;
  scope: EventScope;
}

/**
 * A bounded write-behind queue of observations: `push` never blocks or throws (past `maxQueue`
 * it drops, or with `overflow: "wait"` keeps and leaves back-pressure to the producer); a background
 * drain hands batches to `writeBatch` in order, one at a time. Group commit: the drain starts
 * at the end of the current event-loop turn (`setImmediate`), so everything emitted in one turn
 * — a whole scripted run, or every event of one network chunk — is one write (one SQLite
 * transaction, one `write(2)`), at most `batchSize` observations each; what arrives while a
 * write is in flight becomes the next batch. Overflow and failed writes are
 * counted and reported (see {@link DropReport}), never silent — except that a lost drop report
 * of this sink is only counted (`dropped`), not reported again, so a sink whose storage is down
 * reports its loss once per batch instead of feeding itself reports forever.
 */
export class BoundedObservationQueue {
  readonly maxQueue: number;
  readonly batchSize: number;
  private readonly name: string;
  private readonly writeBatch: (batch: AgentObservation[]) => Promise<void>;
  private readonly options: QueuedSinkOptions;
  private readonly queue: AgentObservation[] = [];
  private draining: Promise<void> | undefined;
  private droppedTotal = 0;
  // The maps and the waiter list below are created on first use: a run's journal queue (one per
  // `attachObservability`) usually never drops, reports or waits, and lives as long as the run.
  private pending: Map<DropReason, PendingDrop> | undefined;
  /** Event sinks (and error callbacks) of the pipelines this sink was attached to. */
  private reporters: Map<EventSink, (error: unknown) => void> | undefined;
  private roomWaiters: Array<() => void> | undefined;

  constructor(
    name: string,
    writeBatch: (batch: AgentObservation[]) => Promise<void>,
    options: QueuedSinkOptions = {},
  ) {
    this.name = name;
    this.writeBatch = writeBatch;
    this.options = options;
    this.maxQueue = positiveInteger(options.maxQueue ?? 10_000, "maxQueue");
    if (options.overflow !== undefined && options.overflow !== "drop" && options.overflow !== "wait") {
      throw validationError(`overflow must be "drop" or "wait", got ${JSON.stringify(options.overflow)}`, {
        field: "overflow",
      });
    }
    this.batchSize = positiveInteger(options.batchSize ?? 500, "batchSize");
  }

  /** Observations lost so far. */
  get dropped(): number {
    return this.droppedTotal;
  }

  /** Observations waiting to be written. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Report drops to `events` (as `journal.dropped`) and `onError` too — what
   * `attachObservability` does for every sink in `options.sinks`, so a sink shared by many
   * pipelines never drops silently. A report goes to the pipeline whose event sink carries the
   * dropped observation's root run (else the first one). Returns the detach function.
   */
  addReporter(events: EventSink, onError: (error: unknown) => void): () => void {
    this.reporters ??= new Map();
    this.reporters.set(events, onError);
    return () => {
      this.reporters?.delete(events);
    };
  }

  /**
   * Back-pressure: resolves once the queue is at most half full (at once when it already is).
   * A producer that awaits it between bursts never overflows the queue.
   */
  waitForRoom(): Promise<void> {
    if (this.queue.length <= this.maxQueue / 2) return Promise.resolve();
    this.roomWaiters ??= [];
    const waiters = this.roomWaiters;
    return new Promise((resolve) => waiters.push(resolve));
  }

  push(observation: AgentObservation): void {
    if (this.queue.length >= this.maxQueue && this.options.overflow !== "wait") {
      this.noteDrop("queue_full", [observation]);
      return;
    }
    this.queue.push(observation);
    this.draining ??= afterThisTurn().then(() => this.drain());
  }

  /** Whether nothing is queued, being written or waiting to be reported (`flush` would not wait). */
  get idle(): boolean {
    return this.draining === undefined && (this.pending === undefined || this.pending.size === 0);
  }

  /** Resolves once everything pushed so far (and any drop report) has been handled. */
  flush(): Promise<void> {
    // Nothing in flight and nothing to report (a run's close, mostly): no async frame.
    if (this.draining === undefined && (this.pending === undefined || this.pending.size === 0)) {
      return Promise.resolve();
    }
    return this.flushPending();
  }

  private async flushPending(): Promise<void> {
    while (this.draining !== undefined) await this.draining;
    if (this.pending !== undefined && this.pending.size > 0) {
      this.report();
      while (this.draining !== undefined) await this.draining;
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.batchSize);
        try {
          await this.writeBatch(batch);
        } catch (error) {
          this.options.onError?.(error);
          this.noteDrop("write_failed", batch);
        }
        if (this.pending !== undefined && this.pending.size > 0 && this.queue.length < this.maxQueue)
          this.report();
        if (this.queue.length <= this.maxQueue / 2) this.wakeProducers();
      }
    } finally {
      this.draining = undefined;
      this.wakeProducers();
    }
  }

  private noteDrop(reason: DropReason, dropped: readonly AgentObservation[]): void {
    this.droppedTotal += dropped.length;
    // This sink's own drop reports that were lost too are counted but never reported again:
    // while storage is down, each report would fail, be reported, fail... forever.
    const lost = dropped.filter((o) => o.event.type !== "journal.dropped" || o.event.sink !== this.name);
    const first = lost[0];
    const last = lost.at(-1);
    if (first === undefined || last === undefined) return;
    const scope: EventScope = { runId: last.runId, rootRunId: last.rootRunId, depth: last.depth };
    if (last.parentRunId !== undefined) scope.parentRunId = last.parentRunId;
    this.pending ??= new Map();
    const pending = this.pending.get(reason);
    if (pending === undefined) {
      this.pending.set(reason, { count: lost.length, from: first.offset, to: last.offset, scope });
    } else {
      pending.count += lost.length;
      pending.to = last.offset;
      pending.scope = scope;
    }
  }

  private reporterFor(rootRunId: string): Reporter | undefined {
    let first: Reporter | undefined;
    if (this.reporters === undefined) return undefined;
    for (const entry of this.reporters) {
      first ??= entry;
      if (entry[0].streamId === rootRunId) return entry;
    }
    return first;
  }

  private wakeProducers(): void {
    if (this.roomWaiters === undefined || this.roomWaiters.length === 0) return;
    for (const resolve of this.roomWaiters.splice(0)) resolve();
  }

  /** Emit (and hand to `onDrop`) every pending drop report. */
  private report(): void {
    const pending = this.pending;
    if (pending === undefined) return;
    for (const [reason, drop] of [...pending]) {
      pending.delete(reason);
      const report: DropReport = {
        sink: this.name,
        dropped: drop.count,
        fromOffset: drop.from,
        toOffset: drop.to,
        reason,
        scope: drop.scope,
      };
      this.options.onDrop?.(report);
      const event = {
        type: "journal.dropped",
        sink: report.sink,
        dropped: report.dropped,
        fromOffset: report.fromOffset,
        toOffset: report.toOffset,
        reason,
      } as const;
      if (this.options.events !== undefined) this.options.events.emit(drop.scope, event);
      else {
        const reporter = this.reporterFor(drop.scope.rootRunId);
        if (reporter !== undefined) {
          reporter[0].emit(drop.scope, event);
          reporter[1](
            new TinyAgentsError(
              "storage",
              `the "${this.name}" sink dropped ${drop.count} observations (${reason}); raise maxQueue or await its drain() between bursts`,
              { details: { sink: this.name, dropped: drop.count, reason } },
            ),
          );
        }
      }
    }
  }
}

type Reporter = [EventSink, (error: unknown) => void];

function positiveInteger(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw validationError(`${field} must be a positive integer, got ${String(value)}`, { field });
  }
  return value;
}
