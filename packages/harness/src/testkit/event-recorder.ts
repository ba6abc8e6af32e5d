import type { AgentEvent, AgentEventOf, AgentEventType, EventRecord } from "../contracts/agent-event.js";
import type { EventListener, EventSink } from "../events/event-sink.js";
import { Trajectory } from "./trajectory.js";

/**
 * Records every event emitted on the sinks it is attached to, in delivery order.
 *
 * ```ts
 * const recorder = new EventRecorder();
 * const detach = recorder.attach(sink); // or sink.subscribe(recorder.listener)
 * // ... run ...
 * expect(recorder.types()).toContain("run.completed");
 * recorder.trajectory().assertToolCalled("search");
 * ```
 *
 * Records are kept as delivered (not copied): events are plain JSON data the harness never
 * mutates after emitting.
 */
export class EventRecorder {
  /** Every record received, in delivery order. */
  readonly records: EventRecord[] = [];

  /** A listener usable directly with `sink.subscribe(recorder.listener)`. */
  readonly listener: EventListener = (record) => {
    this.records.push(record);
  };

  /** Subscribe to `sink`; returns a function that stops recording from it. */
  attach(sink: EventSink): () => void {
    return sink.subscribe(this.listener);
  }

  /** The recorded events, without their envelopes. */
  get events(): AgentEvent[] {
    return this.records.map((record) => record.event);
  }

  /** The recorded event types, in order. */
  types(): AgentEventType[] {
    return this.records.map((record) => record.event.type);
  }

  /** The recorded events of one type, narrowed to that variant. */
  ofType<T extends AgentEventType>(type: T): AgentEventOf<T>[] {
    return this.recordsOfType(type).map((record) => record.event);
  }

  /** The recorded records of one type, with their envelopes, narrowed to that variant. */
  recordsOfType<T extends AgentEventType>(type: T): EventRecord<AgentEventOf<T>>[] {
    return this.records.filter(
      (record): record is EventRecord<AgentEventOf<T>> => record.event.type === type,
    );
  }

  /** A {@link Trajectory} over what was recorded so far. */
  trajectory(): Trajectory {
    return Trajectory.from(this.records);
  }

  /** Forget everything recorded (stays attached). */
  clear(): void {
    this.records.length = 0;
  }
}
