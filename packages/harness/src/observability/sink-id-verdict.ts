import type { Redactor } from "./redaction.js";

/**
 * Whether a redactor leaves an event sink's record ids unchanged, without reading them: an
 * `EventSink`'s ids are `${streamId}-evt-` followed by the record's decimal offset, and the
 * verdict for one prefix holds for every offset with the same number of digits. The built-in
 * secret shapes treat all digits alike (no digit in their literal parts, every character class
 * holds all ten or none, and digits are all word characters for `\b`), so the prefix followed by
 * zeros stands for every such id: one probe. The registered credentials are ruled out by
 * {@link cannotOccurInSinkIds} (when one might occur, the verdict is "not clean" and the caller
 * redacts the id itself). One redactString per prefix and digit count, instead of one scan per
 * record. Used by the per-delta lane
 * (`DeltaRedaction`) and by the bookkeeping short cut (`projectionOnlyFilter`).
 */
export class SinkIdVerdict {
  private readonly redactor: Redactor;
  // The verdict for the records of one event sink: offsets in [low, high).
  private prefix: string | undefined;
  private low = 0;
  private high = 0;
  private length = 0;
  private clean = false;

  constructor(redactor: Redactor) {
    this.redactor = redactor;
  }

  /**
   * Whether redaction leaves the id `idPrefix` + the decimal `offset` (of `idLength` characters)
   * unchanged, under the registered credentials `secrets`. Call {@link forget} when that list
   * changes.
   */
  isClean(offset: number, idLength: number, idPrefix: string, secrets: readonly string[]): boolean {
    if (offset < this.low || offset >= this.high || idPrefix !== this.prefix) {
      if (!Number.isSafeInteger(offset) || offset < 0) return false;
      const digits = String(offset).length;
      this.prefix = idPrefix;
      this.low = digits === 1 ? 0 : 10 ** (digits - 1);
      this.high = 10 ** digits;
      this.length = idPrefix.length + digits;
      const last = idPrefix.charCodeAt(idPrefix.length - 1); // NaN when empty
      this.clean =
        this.redactor.builtInShapesOnly &&
        !(last >= 48 && last <= 57) &&
        idPrefix.length > 0 &&
        this.cleanProbe(idPrefix + "0".repeat(digits)) &&
        secrets.every((secret) => cannotOccurInSinkIds(secret, idPrefix));
    }
    return this.clean && idLength === this.length;
  }

  /** Drop the verdict (the registered credentials changed). */
  forget(): void {
    this.prefix = undefined;
  }

  private cleanProbe(probe: string): boolean {
    return this.redactor.redactString(probe) === probe;
  }
}

/**
 * Whether `secret` can occur in no id `idPrefix` + decimal digits (the prefix ends with a
 * non-digit, as an event sink's `-evt-` does; `isClean` checks it): an occurrence lies in the
 * prefix alone, or reaches into the digits — then the secret ends with digits and what precedes
 * them (if anything) ends the prefix.
 */
function cannotOccurInSinkIds(secret: string, idPrefix: string): boolean {
  if (idPrefix.includes(secret)) return false;
  let head = secret.length;
  while (head > 0 && secret.charCodeAt(head - 1) >= 48 && secret.charCodeAt(head - 1) <= 57) head--;
  if (head === secret.length) return true; // no trailing digit: it would lie in the prefix alone
  return head > 0 && !idPrefix.endsWith(secret.slice(0, head));
}
