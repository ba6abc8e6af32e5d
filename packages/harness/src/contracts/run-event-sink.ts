import type { AgentEvent, ModelDeltaEvent } from "./agent-event.js";
import type { EventListener, EventScope } from "./event-scope.js";

/**
 * The event bus of a run tree, as `ctx.run.events`: a parent run and its children share one, so
 * one stream shows the whole call tree, with offsets monotonic across it. `EventSink` implements
 * it. To emit for the current run, prefer `ctx.run.emit(event)` (it adds the run's scope).
 */
export interface RunEventSink {
  /** Names the stream; event ids are `${streamId}-evt-<offset>`. */
  readonly streamId: string;
  /** Add a listener; returns a function that removes it. */
  subscribe(listener: EventListener): () => void;
  unsubscribe(listener: EventListener): void;
  /** Whether anyone listens (lets callers skip building expensive payloads). */
  readonly hasListeners: boolean;
  /** The offset the next event will get. */
  readonly offset: number;
  /** Move the next offset forward to `offset` (never backward). */
  advanceTo(offset: number): void;
  /** The id the last emitted event got, if any. */
  readonly lastEventId: string | undefined;
  /** Emit an event for `scope`; returns its offset. */
  emit(scope: EventScope, event: AgentEvent): number;
  /** Emit a streamed model delta (`model.*_delta`) for `scope`; returns its offset. */
  emitDelta(scope: EventScope, event: ModelDeltaEvent): number;
}
