import { type EventListener, EventSink } from "@tinyagents/harness";

/**
 * The event sink of a run inside a Restate workflow: listeners (the live sink, the journal the
 * client tails) only hear events emitted while the handler is executing new work, never while
 * Restate replays the journal after a suspension, a retry or a worker change — the first
 * execution already delivered those. Offsets stay those of the first execution: every journaled
 * step records the sink's offset when it finished and a replayed step moves the sink back there
 * (`RestateDurableOptions.eventOffsets`), so the events after a replay continue the sequence
 * instead of reusing offsets (a replayed model step emits none of its events). Deltas stream live
 * and are never journaled by Restate (only each step's final value is).
 *
 * Around a crash the boundary is approximate: the step that was in flight runs again and emits its
 * events again, from the offset its predecessor recorded. The run's journal is written through a
 * `ReplayReconcilingJournal` that drops what it already stored at those offsets, closes the dead
 * attempt (`*.abandoned`) and moves what collides past the stored offsets.
 */
export class ReplayAwareEventSink extends EventSink {
  private readonly live: () => boolean;

  /** `live()` says whether the handler is executing new work (not replaying). */
  constructor(
    streamId: string,
    live: () => boolean,
    options: ConstructorParameters<typeof EventSink>[1] = {},
  ) {
    super(streamId, options);
    this.live = live;
  }

  override subscribe(listener: EventListener): () => void {
    return super.subscribe((record) => {
      if (this.live()) listener(record);
    });
  }
}

/**
 * Whether a Restate handler context is executing new work rather than replaying its journal. The
 * SDK keeps this on its context implementation (`isProcessing`, what its own replay-aware logger
 * uses) without a public type; a context without it counts as live.
 */
export function isLive(ctx: object): boolean {
  const probe = (ctx as { isProcessing?: () => boolean }).isProcessing;
  return typeof probe === "function" ? probe.call(ctx) : true;
}
