import { systemClock, validationError } from "@tinyagents/inference";
import type { AgentEvent, EventRecord, ModelDeltaEvent } from "../contracts/agent-event.js";
import type { EventListener, EventScope } from "../contracts/event-scope.js";
import type { RunEventSink } from "../contracts/run-event-sink.js";
import { deltaTime, realTime } from "./delta-time.js";

export type { EventListener, EventScope } from "../contracts/event-scope.js";

/**
 * The event bus of a run tree. A parent run and its children share one sink, so one stream
 * shows the whole call tree; offsets are monotonic across it.
 *
 * - Emitting with no listener only bumps the offset (no record is built).
 * - A listener that throws is reported to `onListenerError` and never breaks the run.
 * - An emit from inside a listener is queued and delivered after the current one, in order.
 */
export class EventSink implements RunEventSink {
  readonly streamId: string;
  // Created on first subscribe / first delivered event: most runs' sinks have no listener, and
  // with a thousand runs in flight each empty Set is a hash table kept alive (W3).
  private listeners: Set<EventListener> | undefined;
  // The listener when exactly one is subscribed (the usual case: one stream or one journal), so
  // a record reaches it by a direct call instead of an iteration of the Set (per streamed delta).
  private sole: EventListener | undefined;
  private nextOffset = 0;
  private delivering = false;
  private queue: EventRecord[] | undefined;
  private readonly clock: { now(): number } | undefined;
  private readonly now: () => number;
  private readonly onListenerError: (error: unknown, record: EventRecord) => void;
  // `${streamId}-evt-`, built on the first record: each record's id is then one concatenation.
  private idPrefix: string | undefined;
  // Timestamps come from the real clock (`Date.now`): streamed deltas may share readings (deltaTime).
  private readonly realTime: boolean;

  /**
   * Timestamps come from `clock` (a run's `Clock`), else `now`, else `Date.now`; a listener that
   * throws is reported to `onListenerError`. `startOffset` (default 0) is the offset (and event
   * id sequence number) of the first event: a resumed or recovered run tree continues its
   * journal's offsets instead of restarting at 0 (see `continueEventSink`).
   */
  constructor(
    streamId: string,
    options: {
      clock?: { now(): number };
      now?: () => number;
      onListenerError?: (error: unknown, record: EventRecord) => void;
      startOffset?: number;
    } = {},
  ) {
    this.streamId = streamId;
    if (options.startOffset !== undefined) this.advanceTo(options.startOffset);
    this.clock = options.clock;
    this.now = options.now ?? Date.now;
    this.onListenerError = options.onListenerError ?? ignore;
    this.realTime = this.clock === undefined ? this.now === Date.now : this.clock === systemClock;
  }

  /** Add a listener; returns a function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.listeners ??= new Set();
    this.listeners.add(listener);
    this.sole = this.listeners.size === 1 ? listener : undefined;
    return () => this.unsubscribe(listener);
  }

  unsubscribe(listener: EventListener): void {
    const listeners = this.listeners;
    if (listeners === undefined) return;
    listeners.delete(listener);
    this.sole = listeners.size === 1 ? listeners.values().next().value : undefined;
  }

  /** Whether anyone listens (lets callers skip building expensive payloads). */
  get hasListeners(): boolean {
    return this.listeners !== undefined && this.listeners.size > 0;
  }

  /** The offset the next event will get. */
  get offset(): number {
    return this.nextOffset;
  }

  /**
   * Move the next offset forward to `offset` (never backward: offsets of a run tree only grow).
   * Resume calls it with the offset a `PausedRun` recorded, so a sink the caller built fresh
   * does not reuse offsets and ids the run already journaled. Throws `validation` for a value
   * that is not a non-negative integer.
   */
  advanceTo(offset: number): void {
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw validationError(`an event offset must be a non-negative integer, got ${String(offset)}`, {
        field: "startOffset",
      });
    }
    if (offset > this.nextOffset) this.nextOffset = offset;
  }

  /** The id the last emitted event got, if any. */
  get lastEventId(): string | undefined {
    return this.nextOffset === 0 ? undefined : `${this.streamId}-evt-${this.nextOffset - 1}`;
  }

  /** Emit an event for `scope`; returns its offset. */
  emit(scope: EventScope, event: AgentEvent): number {
    const offset = this.nextOffset++;
    const listeners = this.listeners;
    if (listeners === undefined || listeners.size === 0) return offset;
    const ts = this.realTime ? realTime() : this.clock === undefined ? this.now() : this.clock.now();
    this.deliver(listeners, this.record(scope, event, offset, ts));
    return offset;
  }

  /**
   * Emit a streamed model delta (`model.*_delta`): {@link emit}, except that on the real clock its
   * `ts` may be the reading of a record up to 15 records earlier in the same event-loop turn (see
   * `deltaTime`: reading the clock costs as much as the rest of a delta's hand-off).
   */
  emitDelta(scope: EventScope, event: ModelDeltaEvent): number {
    const offset = this.nextOffset++;
    const listeners = this.listeners;
    if (listeners === undefined || listeners.size === 0) return offset;
    const ts = this.realTime ? deltaTime() : this.clock === undefined ? this.now() : this.clock.now();
    this.deliver(listeners, this.record(scope, event, offset, ts));
    return offset;
  }

  private record(scope: EventScope, event: AgentEvent, offset: number, ts: number): EventRecord {
    this.idPrefix ??= `${this.streamId}-evt-`;
    const record: EventRecord = {
      id: this.idPrefix + offset,
      offset,
      ts,
      runId: scope.runId,
      rootRunId: scope.rootRunId,
      depth: scope.depth,
      event,
    };
    if (scope.parentRunId !== undefined) record.parentRunId = scope.parentRunId;
    if (scope.graphNode !== undefined) record.graphNode = scope.graphNode;
    return record;
  }

  /** To every listener; an emit from inside a listener waits until the current record is delivered. */
  private deliver(listeners: Set<EventListener>, record: EventRecord): void {
    if (this.delivering) {
      this.queue ??= [];
      this.queue.push(record);
      return;
    }
    this.delivering = true;
    try {
      this.notify(listeners, record);
      const queue = this.queue;
      if (queue !== undefined) {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) this.notify(listeners, next);
      }
    } finally {
      this.delivering = false;
    }
  }

  private notify(listeners: Set<EventListener>, record: EventRecord): void {
    const sole = this.sole;
    if (sole !== undefined) {
      try {
        sole(record);
      } catch (error) {
        this.onListenerError(error, record);
      }
      // A listener subscribed during that call still gets this record, as in the loop below.
      if (listeners.size > 1) {
        for (const listener of listeners) {
          if (listener === sole) continue;
          try {
            listener(record);
          } catch (error) {
            this.onListenerError(error, record);
          }
        }
      }
      return;
    }
    for (const listener of listeners) {
      try {
        listener(record);
      } catch (error) {
        this.onListenerError(error, record);
      }
    }
  }
}

function ignore(): void {}
