import type { AgentObservation } from "./agent-observation.js";

/**
 * A derived view at a point of the event stream. `sourceOffset` is the offset of the last
 * observation folded in (-1 before any); `projectionVersion` changes whenever the derivation
 * changes, so a stored projection with another version must be rebuilt from the journal.
 */
export interface ProjectionSnapshot<T> {
  name: string;
  projectionVersion: number;
  sourceOffset: number;
  value: T;
}

/** A fold over observations that can be rebuilt at any time by replaying the journal. */
export interface Projection<T> {
  readonly name: string;
  readonly projectionVersion: number;
  /** Fold one observation in (observations must arrive in stream order). */
  apply(observation: AgentObservation): void;
  /** A deep copy of the current view. */
  snapshot(): ProjectionSnapshot<T>;
}
