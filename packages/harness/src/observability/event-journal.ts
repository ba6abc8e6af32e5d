import { validationError } from "@tinyagents/inference";
import type { AgentEventType } from "../contracts/agent-event.js";
import type { AgentObservation } from "./agent-observation.js";

/** A window and filter over one root run's journal. Offsets are `AgentObservation.offset`. */
export interface JournalQuery {
  /** Inclusive lower bound on `offset` (default 0). */
  fromOffset?: number;
  /** Exclusive upper bound on `offset`. */
  toOffset?: number;
  /** At most this many observations. */
  limit?: number;
  /** Only these event types. */
  types?: readonly AgentEventType[];
  /** Only observations of this run (the root or one of its sub-agents). */
  runId?: string;
}

/** Receives replayed observations in journal order; may be async (replay waits for it). */
export type ReplayListener = (observation: AgentObservation) => void | Promise<void>;

/**
 * "What happened?": an append-only record of every observation, grouped by root run id (one
 * stream per run tree, matching the sink's stream). Observations are stored verbatim and read
 * back in the order they were appended.
 *
 * Offsets of one run tree only grow: the built-in journals reject an append whose first offset
 * is not past the stored last one with a `conflict` error (a second writer of the same run
 * tree), instead of interleaving two offset sequences.
 */
export interface HarnessEventJournal {
  append(observation: AgentObservation): Promise<void>;
  /** Append several observations, keeping their order. */
  appendMany(observations: readonly AgentObservation[]): Promise<void>;
  /** A window of one run tree's observations, filtered. */
  read(rootRunId: string, query?: JournalQuery): Promise<AgentObservation[]>;
  /**
   * Deliver every observation of `rootRunId` with `offset >= fromOffset` to `listener`, in order,
   * awaiting the listener each time. Resolves with the number delivered.
   */
  replay(rootRunId: string, fromOffset: number, listener: ReplayListener): Promise<number>;
  /** Root run ids that have a journal, oldest first where the backend knows the order. */
  rootRuns(): Promise<string[]>;
  /**
   * The offset of the last stored observation of `rootRunId` (undefined when it has none). A
   * resumed or recovered run continues after it (`continueEventSink`). Optional: without it the
   * last offset is found by reading the stream.
   */
  lastOffset?(rootRunId: string): Promise<number | undefined>;
}

/** Validate a query's numbers. */
export function validateQuery(query: JournalQuery): void {
  for (const field of ["fromOffset", "toOffset", "limit"] as const) {
    const value = query[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 0)) {
      throw validationError(`journal query ${field} must be a non-negative integer, got ${String(value)}`, {
        field,
      });
    }
  }
}

/** A predicate for the filter part of a query (offset bounds, types, run id). */
export function queryFilter(query: JournalQuery): (observation: AgentObservation) => boolean {
  const from = query.fromOffset ?? 0;
  const to = query.toOffset ?? Number.POSITIVE_INFINITY;
  const types = query.types === undefined ? undefined : new Set<string>(query.types);
  const runId = query.runId;
  return (o) =>
    o.offset >= from &&
    o.offset < to &&
    (types === undefined || types.has(o.event.type)) &&
    (runId === undefined || o.runId === runId);
}
