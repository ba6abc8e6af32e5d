import type { EventRecord } from "./agent-event.js";
import type { GraphNodeRef } from "./graph-node.js";

/** Receives every event record emitted on a sink. */
export type EventListener = (record: EventRecord) => void;

/** Who is emitting: the run-identity part of the envelope. */
export interface EventScope {
  runId: string;
  parentRunId?: string;
  rootRunId: string;
  depth: number;
  /** Set for a graph node's call: copied onto every record (one frozen object, shared). */
  graphNode?: GraphNodeRef;
}
