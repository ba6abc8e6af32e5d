import { streamContext, type TextRedactor } from "./text-redactor.js";

/**
 * Redacts text that arrives in pieces (streamed deltas) so that a match split across pieces is
 * still masked: the last `holdback` characters are held back until later text (or the end of
 * the stream) shows they are not the start of a secret, and so is any match that reaches the
 * end of what arrived (more text could extend it) and any match of a pattern's `partial`
 * reaching it. What {@link push} and {@link end} return, concatenated, is the whole text
 * redacted as {@link TextRedactor.text} would redact it in one piece, for every pattern whose
 * matches are recognisable within `holdback` characters (or that has a `partial`).
 *
 * Cost: most pieces cost a string concatenation; once `holdback` plus a quarter of it are held,
 * one scan per pattern of the held text (never of what was emitted before) lets out everything
 * up to the last `holdback` characters, so the scans are amortized over the pieces. A match
 * still growing is held up to `maxHold` characters, then masked and emitted (what follows it is
 * then streamed as usual).
 */
export class StreamRedactor {
  private readonly redactor: TextRedactor;
  private readonly holdback: number;
  private readonly maxHold: number;
  /** Held characters beyond `holdback` that trigger a scan: scans are amortized over several pieces. */
  private readonly slack: number;
  /** Raw text received but not yet emitted. */
  private pending = "";
  /** Per pattern, the last characters of emitted text as that pattern saw them (lookbehind). */
  private contexts: string[] = [];

  constructor(redactor: TextRedactor, holdback: number, maxHold = Math.max(16_384, holdback * 4)) {
    this.redactor = redactor;
    this.holdback = holdback;
    this.maxHold = maxHold;
    this.slack = Math.max(1, Math.floor(holdback / 4));
  }

  /** How many characters are held back. */
  get held(): number {
    return this.pending.length;
  }

  /** Take the next piece; returns the redacted text that can be emitted now (often `""`). */
  push(text: string): string {
    if (text.length === 0) return "";
    const pending = this.pending + text;
    // Nothing to scan until the held text passes the holdback by `slack`: most pieces cost a
    // concatenation, and one scan covers `slack` characters or more.
    if (pending.length < this.holdback + this.slack) {
      this.pending = pending;
      return "";
    }
    const cut = pending.length - this.holdback;
    const scan = this.redactor.safeCut(this.contexts, pending, cut);
    let safe = scan.cut;
    if (safe === 0) {
      if (pending.length <= this.maxHold) {
        this.pending = pending;
        return "";
      }
      safe = cut;
    }
    if (scan.clean) {
      // No match starts before the cut: the text goes out as it came.
      const out = pending.slice(0, safe);
      this.pending = pending.slice(safe);
      const contexts: string[] = [];
      for (let k = 0; k < this.redactor.patternCount; k++) {
        contexts.push(streamContext((this.contexts[k] ?? "") + out));
      }
      this.contexts = contexts;
      return out;
    }
    const range = this.redactor.textRange(this.contexts, pending, safe);
    this.pending = pending.slice(range.end);
    this.contexts = range.contexts;
    return range.text;
  }

  /** The end of the stream: everything still held, redacted. Resets the redactor. */
  end(): string {
    const pending = this.pending;
    const out =
      pending.length === 0 ? "" : this.redactor.textRange(this.contexts, pending, pending.length).text;
    this.reset();
    return out;
  }

  /** Forget what is held (a new stream). */
  reset(): void {
    this.pending = "";
    this.contexts = [];
  }
}
