/** A recoverable problem a store noticed and worked around (reported, never thrown). */
export interface StoreWarning {
  /**
   * - `torn_tail`: the file ends with a partial line (a write cut short by a crash, or one
   *   still in flight from another process); it is ignored until completed.
   * - `corrupt_line`: a complete line that is not JSON (usually a torn tail that a later
   *   append terminated); its offset stays reserved and reads skip it.
   */
  code: "torn_tail" | "corrupt_line";
  message: string;
  file: string;
  /** Byte position of the problem in the file. */
  byte?: number;
  /** Offset of the skipped entry (`corrupt_line`). */
  offset?: number;
}

/** Where warnings go by default: one line on stderr. */
export function defaultStoreWarning(warning: StoreWarning): void {
  process.emitWarning(warning.message, { code: `TINYAGENTS_${warning.code.toUpperCase()}` });
}
