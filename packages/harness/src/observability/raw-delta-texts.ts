import type { AgentObservation } from "./agent-observation.js";

/**
 * The raw text of the streamed text and reasoning deltas a pipeline's `RedactingSink` changed,
 * by their redacted copy, for that pipeline's journal only: its delta coalescer redacts a merge
 * from the raw texts (a secret split across deltas, or completed by one delta and continued by
 * the next, is found only there). Weakly held and private to the pipeline: no record, export,
 * error or log carries the raw text, and a copy nobody merges is simply collected.
 */
export class RawDeltaTexts {
  /**
   * Created at the first note: a pipeline lives as long as its run, and most runs' deltas (if
   * any) are never changed by redaction — a thousand runs in flight need no thousand tables.
   */
  private texts: WeakMap<AgentObservation, string> | undefined;

  /** Note the raw `text` of a delta whose redacted copy is `redacted`. */
  note(redacted: AgentObservation, text: string): void {
    this.texts ??= new WeakMap();
    this.texts.set(redacted, text);
  }

  /** The raw text noted for `redacted` (forgotten once taken), or `undefined`: it was not changed. */
  take(redacted: AgentObservation): string | undefined {
    const texts = this.texts;
    if (texts === undefined) return undefined;
    const text = texts.get(redacted);
    if (text !== undefined) texts.delete(redacted);
    return text;
  }
}
