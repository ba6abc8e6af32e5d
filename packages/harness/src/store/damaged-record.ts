import type { JsonValue } from "@tinyagents/inference";
import type { StoreWarning } from "./store-warning.js";

/** Where a stored record came from, for the warning when it cannot be read back. */
export interface RecordSource {
  /** The file (or database) holding it. */
  file: string;
  /** Its stream or key. */
  record: string;
  /** Its offset in the stream, if it has one. */
  offset?: number;
}

/**
 * `JSON.parse(text)`, or `undefined` after reporting a `damaged_record` warning naming the file,
 * the record and its offset: one damaged row must not fail a whole listing.
 */
export function parseStoredRecord(
  text: string,
  source: RecordSource,
  warn: (warning: StoreWarning) => void,
): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    warn(damagedRecord(source, `is not valid JSON (${(error as Error).message})`));
    return undefined;
  }
}

/** The `damaged_record` warning for `source`, saying what is wrong with it. */
export function damagedRecord(source: RecordSource, problem: string): StoreWarning {
  const at = source.offset === undefined ? "" : ` at offset ${source.offset}`;
  return {
    code: "damaged_record",
    message: `${source.file}: record ${JSON.stringify(source.record)}${at} ${problem}; skipping it`,
    file: source.file,
    record: source.record,
    ...(source.offset === undefined ? {} : { offset: source.offset }),
  };
}
