import type { AgentObservation } from "./agent-observation.js";
import { isEssentialForJournal, type JournalEvents } from "./journal-events.js";
import type { Redactor } from "./redaction.js";

/**
 * Whether the standard projections ignore the payload of `type`: the status projection only
 * notes the record's id and offset (and, for `middleware.started`, the phase), the usage and
 * timing projections skip it. True for the bookkeeping events the essential journal leaves out.
 */
function payloadUnread(type: AgentObservation["event"]["type"]): boolean {
  switch (type) {
    case "middleware.started":
    case "middleware.completed":
    case "budget.reserved":
    case "budget.reconciled":
    case "state.updated":
    case "route.selected":
      return true;
    default:
      return false;
  }
}

/**
 * The short cut of an `attachObservability` pipeline for its bookkeeping events: when the
 * pipeline has no extra sinks and its journal (if any) does not store an observation, only the
 * projections read it, and they read nothing of its payload. Such an observation goes straight
 * to the projections, without the redaction walk and the fan-out: it reaches no journal, store
 * field or exporter in either way, and the projections apply it in the same order. Each hook of
 * each middleware emits two of them per call (`middleware.started` / `middleware.completed`).
 *
 * Returns `undefined` when the pipeline cannot take it (extra sinks, or a journal storing every
 * event). An observation whose envelope strings the redactor would change (a run id shaped like
 * a secret) or that carries a graph node (copied into a new status record) takes the full path.
 */
export function projectionOnlyFilter(options: {
  sinks: number;
  journal: JournalEvents | undefined;
  redactor: Redactor | undefined;
}): ((observation: AgentObservation) => boolean) | undefined {
  if (options.sinks > 0 || options.journal === "all") return undefined;
  const redactor = options.redactor;
  const clean = (text: string | undefined) =>
    text === undefined || redactor === undefined || redactor.redactString(text) === text;
  return (o) =>
    payloadUnread(o.event.type) &&
    !isEssentialForJournal(o) &&
    o.graphNode === undefined &&
    clean(o.id) &&
    clean(o.runId) &&
    clean(o.rootRunId) &&
    clean(o.parentRunId);
}
