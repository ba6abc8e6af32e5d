import type { EventSink } from "../events/event-sink.js";
import type { AgentObservation } from "./agent-observation.js";

/**
 * A consumer of observations that composes: `write` is synchronous and must not throw for
 * ordinary failures (buffer, report, drop — never break the run); `flush` waits until
 * everything written so far is stored; `close` flushes and releases resources.
 */
export interface ObservationSink {
  write(observation: AgentObservation): void;
  flush?(): Promise<void>;
  close?(): Promise<void>;
  /**
   * Called by `attachObservability` for every sink in `options.sinks`: report this sink's drops
   * on `events` (`journal.dropped`) and to `onError`. Returns the detach function.
   */
  attachReporting?(events: EventSink, onError: (error: unknown) => void): () => void;
}

/** Subscribe `sink` to an event sink; returns the unsubscribe function. */
export function attachSink(events: EventSink, sink: ObservationSink): () => void {
  return events.subscribe((record) => sink.write(record));
}
