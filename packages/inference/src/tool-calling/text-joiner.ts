/**
 * Joins the prose around removed markup incrementally, with the rule `parseToolCallsFromText`
 * documents: each stretch of prose between markup is trimmed, empty stretches are dropped, and
 * the rest are joined with `"\n"`. Whitespace at the end of what was shown so far is held back
 * until more prose follows (so nothing ever has to be taken back).
 */
export class TextJoiner {
  private shown = false;
  private heldWhitespace = "";
  private separate = false;

  /** Add prose; returns the text to show now (maybe empty). */
  text(piece: string): string {
    let first = 0;
    while (first < piece.length && isSpace(piece.charCodeAt(first))) first++;
    if (first === piece.length) {
      if (this.shown && !this.separate) this.heldWhitespace += piece;
      return "";
    }
    let last = piece.length - 1;
    while (isSpace(piece.charCodeAt(last))) last--;
    let out = "";
    if (this.shown) out = this.separate ? "\n" : this.heldWhitespace + piece.slice(0, first);
    out += piece.slice(first, last + 1);
    this.heldWhitespace = piece.slice(last + 1);
    this.separate = false;
    this.shown = true;
    return out;
  }

  /** Markup was removed here: the prose on either side becomes separate stretches. */
  boundary(): void {
    this.heldWhitespace = "";
    this.separate = true;
  }
}

/** `\s` for one UTF-16 code unit (ASCII fast path). */
function isSpace(code: number): boolean {
  if (code === 32 || (code >= 9 && code <= 13)) return true;
  return code > 127 && /\s/.test(String.fromCharCode(code));
}
