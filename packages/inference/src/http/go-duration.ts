const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/**
 * Parse a Go `time.Duration` string (the format of OpenAI's `x-ratelimit-reset-requests` and
 * `x-ratelimit-reset-tokens` headers) into milliseconds: `"6m0s"` -> 360000, `"2.01s"` -> 2010,
 * `"12ms"` -> 12, `"1h2m3.5s"`, `"0"` -> 0. Surrounding whitespace is ignored.
 * Returns `undefined` for anything else (negative durations, bare numbers other than 0,
 * unknown units, garbage), so a caller can fall back to another hint.
 */
export function parseGoDuration(text: string | null | undefined): number | undefined {
  if (text === undefined || text === null) return undefined;
  const value = text.trim();
  if (value === "") return undefined;
  if (value === "0") return 0;
  let total = 0;
  PART.lastIndex = 0;
  let consumed = 0;
  while (consumed < value.length) {
    PART.lastIndex = consumed;
    const match = PART.exec(value);
    if (match === null) return undefined;
    const amount = Number.parseFloat(match[1]!);
    const unit = UNIT_MS[match[2]!];
    if (!Number.isFinite(amount) || unit === undefined) return undefined;
    total += amount * unit;
    consumed = PART.lastIndex;
  }
  // Avoid float noise such as 2.0100000000000002.
  return Math.round(total * 1e6) / 1e6;
}
