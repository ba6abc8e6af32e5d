import { JsonPrefixScanner } from "./json-prefix-scanner.js";
import { repairArguments, strictObject } from "./repair-arguments.js";

/**
 * The argument text of one streamed tool call. Fragments go in with {@link push}, which returns
 * the part that is safe to stream now (the growing strict-JSON prefix; see
 * `JsonPrefixScanner`); {@link finish} returns the rest, chosen so that everything returned,
 * concatenated, is:
 * - the text as received (minus leading whitespace) when it is a strict JSON object or empty;
 * - else the repaired text from `repairArguments` when the already-streamed prefix is a prefix
 *   of it (it always is, except in contrived cases);
 * - else the received text, which then parses as an invalid call (raw text + error kept).
 * The result depends only on the whole text, never on how it was split into fragments, so
 * streaming and unary parsing of the same answer produce the same arguments.
 */
export class ToolArgumentsBuffer {
  private readonly scanner = new JsonPrefixScanner();
  private readonly parts: string[] = [];
  /** Received text not yet returned (starts at `emitted` in the full text). */
  private held = "";
  private emitted = 0;
  private started = false;

  /** True once any non-whitespace argument text arrived. */
  get hasText(): boolean {
    return this.started;
  }

  /** True when the received text already holds a complete JSON object. */
  get complete(): boolean {
    return this.scanner.complete;
  }

  /** Add a fragment; returns the text that can be streamed now ("" when none). */
  push(fragment: string): string {
    if (fragment === "") return "";
    this.parts.push(fragment);
    this.held += fragment;
    if (!this.started && fragment.trim() !== "") this.started = true;
    this.scanner.feed(fragment);
    const { start, safeEnd } = this.scanner;
    if (start < 0 || safeEnd <= this.emitted) return "";
    if (this.emitted < start) {
      // Drop leading whitespace before the object.
      this.held = this.held.slice(start - this.emitted);
      this.emitted = start;
    }
    const ready = this.held.slice(0, safeEnd - this.emitted);
    this.held = this.held.slice(safeEnd - this.emitted);
    this.emitted = safeEnd;
    return ready;
  }

  /** The rest of the argument text (see the class contract). Call once, at the end. */
  finish(): string {
    const raw = this.parts.join("");
    const start = this.scanner.start;
    const streamed = start < 0 ? "" : raw.slice(start, this.emitted);
    const rest = start < 0 ? raw.trimStart() : this.held;
    if (raw.trim() === "") return "";
    if (strictObject(streamed + rest) !== undefined) return rest;
    const repaired = repairArguments(raw);
    if (repaired?.text.startsWith(streamed)) {
      const remainder = repaired.text.slice(streamed.length);
      if (strictObject(streamed + remainder) !== undefined) return remainder;
    }
    return rest;
  }
}
