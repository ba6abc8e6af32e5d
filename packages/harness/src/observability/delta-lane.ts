import type { AgentObservation } from "./agent-observation.js";
import type { JournalSink } from "./journal-sink.js";
import type { ProjectionSink } from "./projection-sink.js";
import type { Redactor } from "./redaction.js";
import { DeltaRedaction } from "./redaction-delta.js";

/**
 * The short cut of an `attachObservability` pipeline for the bulk of a streamed response: a
 * text or reasoning delta that continues its model call's pending journal merge. Such a delta
 * leaves two traces — the projections note its id, offset and time, and its text joins the
 * merge — so instead of redacting the whole record, fanning it out and handing it to the
 * journal, the lane redacts its text and appends it to the merge (with its raw text: the merge is
 * redacted from the raw texts when it is released), and gives the record to the
 * projections (which read nothing of its text). Taken only when redacting the record would
 * change nothing else (see `DeltaRedaction.cleanDeltaText`), so the journal and the
 * projections get exactly what the full path gives them; the pipeline must have no sinks of its
 * own beyond the projections and the journal (each of those gets every record redacted).
 */
export class DeltaLane {
  private readonly redaction: DeltaRedaction;
  private readonly projections: ProjectionSink;
  private readonly journal: JournalSink;
  private readonly onError: (error: unknown) => void;
  private readonly idPrefix: string;

  /** `streamId`: the event sink's, whose record ids are `${streamId}-evt-${offset}`. */
  constructor(
    streamId: string,
    redactor: Redactor,
    projections: ProjectionSink,
    journal: JournalSink,
    onError: (error: unknown) => void,
  ) {
    this.redaction = new DeltaRedaction(redactor);
    this.projections = projections;
    this.journal = journal;
    this.onError = onError;
    this.idPrefix = `${streamId}-evt-`;
  }

  /** Handle `record` and return true, or return false (untouched) for the full path. */
  take(record: AgentObservation): boolean {
    const event = record.event;
    if (event.type !== "model.text_delta" && event.type !== "model.reasoning_delta") return false;
    const text = this.redaction.cleanDeltaText(record, this.idPrefix);
    if (
      text === undefined ||
      !this.journal.continueDelta(record.runId, event.callId, event.type, text, event.text)
    )
      return false;
    // As the fan-out does: a projection failure is reported, the journal has the text already.
    try {
      this.projections.write(record);
    } catch (error) {
      this.onError(error);
    }
    return true;
  }
}
