import { validationError } from "../errors/tinyagents-error.js";

/**
 * Check a `maxResponseBytes` model option (the total byte cap of one response body, streamed or
 * not): `undefined` keeps the defaults (`MAX_BODY_BYTES` for a JSON body, `MAX_STREAM_BYTES` for a
 * stream); `Infinity` disables the cap; anything else must be an integer >= 1. Throws a
 * `validation` error naming `who` and the field.
 */
export function resolveMaxResponseBytes(value: unknown, who: string): number | undefined {
  if (value === undefined) return undefined;
  if (value === Number.POSITIVE_INFINITY) return value;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw validationError(
      `${who}: maxResponseBytes must be an integer number of bytes >= 1 (or Infinity to disable the cap), got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`,
      { field: "maxResponseBytes" },
    );
  }
  return value;
}
