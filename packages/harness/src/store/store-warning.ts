/** A recoverable problem a store noticed and worked around (reported, never thrown). */
export interface StoreWarning {
  /**
   * - `torn_tail`: the file ends with a partial line (a write cut short by a crash, or one
   *   still in flight from another process); it is ignored until completed.
   * - `corrupt_line`: a complete line that is not JSON (usually a torn tail that a later
   *   append terminated); its offset stays reserved and reads skip it.
   * - `damaged_record`: a stored record that cannot be read back (not JSON, or not the shape
   *   its reader needs, such as a `null` journal line); reads and listings skip it.
   */
  code: "torn_tail" | "corrupt_line" | "damaged_record";
  message: string;
  file: string;
  /** Byte position of the problem in the file. */
  byte?: number;
  /** Offset of the skipped entry (`corrupt_line`, `damaged_record` in a stream). */
  offset?: number;
  /** The stream, or the record's key, of a `damaged_record`. */
  record?: string;
}

/** Where warnings go by default: one line on stderr. */
export function defaultStoreWarning(warning: StoreWarning): void {
  process.emitWarning(warning.message, { code: `TINYAGENTS_${warning.code.toUpperCase()}` });
}
