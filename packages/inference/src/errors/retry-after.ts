/** Headers as a WHATWG `Headers` object or a plain record (names matched case-insensitively). */
export type HeaderSource = Headers | Record<string, string | undefined>;

const NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;
/** A time of day is required so that stray text is never read as a date. */
const HTTP_DATE_SHAPE = /[A-Za-z]{3}.*\d{1,2}:\d{2}:\d{2}/;

/**
 * How long the provider asked us to wait, in milliseconds, or `undefined` when it did not say
 * (or said something unreadable). Reads, in order:
 * - `retry-after-ms`: milliseconds, may be fractional (OpenAI);
 * - `retry-after`: seconds (may be fractional), or an HTTP date taken relative to `nowMs`
 *   (a date in the past gives 0).
 * Negative numbers and garbage give `undefined`; an unreadable `retry-after-ms` falls through to
 * `retry-after`.
 */
export function parseRetryAfter(headers: HeaderSource, nowMs: number): number | undefined {
  const ms = header(headers, "retry-after-ms");
  if (ms !== undefined && NUMBER.test(ms)) return Number.parseFloat(ms);
  const value = header(headers, "retry-after");
  if (value === undefined) return undefined;
  if (NUMBER.test(value)) return Number.parseFloat(value) * 1000;
  if (!HTTP_DATE_SHAPE.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | undefined>;
  const exact = record[name];
  if (exact !== undefined) return exact;
  for (const key of Object.keys(record)) if (key.toLowerCase() === name) return record[key];
  return undefined;
}
