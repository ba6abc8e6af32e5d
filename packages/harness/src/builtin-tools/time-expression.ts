import { type CivilTime, civilAt, civilToInstant, isValidCivil } from "./time-zone.js";

/** Where a time expression is evaluated. */
export interface TimeExpressionContext {
  /** "Now", epoch milliseconds (from the run's clock). */
  now: number;
  /** IANA zone for offset-less date-times and for `today` / `yesterday` / `tomorrow`. */
  timeZone: string;
}

/** The instant an expression denotes, or why it could not be read. */
export type TimeExpressionResult = { ok: true; ms: number } | { ok: false; error: string };

const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const UNIT_WORDS: Readonly<Record<string, string>> = {
  s: "s",
  sec: "s",
  secs: "s",
  second: "s",
  seconds: "s",
  m: "m",
  min: "m",
  mins: "m",
  minute: "m",
  minutes: "m",
  h: "h",
  hr: "h",
  hrs: "h",
  hour: "h",
  hours: "h",
  d: "d",
  day: "d",
  days: "d",
  w: "w",
  wk: "w",
  wks: "w",
  week: "w",
  weeks: "w",
};

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|z|[+-]\d{2}:?\d{2})?)?$/;

/** What `resolve_time` accepts, for its description and error messages. */
export const TIME_EXPRESSION_HELP =
  "now; relative durations such as `in 10 minutes`, `2 weeks ago`, `30m from now`, `next 7d`, `last 3 days`, `+2h`, `-1d` " +
  "(units s/m/h/d/w or their long forms; a bare duration like `7d` counts as past); today, yesterday, tomorrow (midnight in the zone); " +
  "RFC 3339 (`2025-03-01T14:30:00Z`, `2025-03-01T14:30:00+09:00`); `YYYY-MM-DD HH:MM[:SS]` and `YYYY-MM-DDTHH:MM[:SS]` in the zone; " +
  "a bare date `YYYY-MM-DD` (midnight in the zone); a unix timestamp in seconds (10 digits) or milliseconds (13 digits)";

/**
 * Read a time expression (see {@link TIME_EXPRESSION_HELP}) relative to `ctx.now` in
 * `ctx.timeZone`. Never throws: unreadable, impossible or ambiguous inputs give `{ ok: false }`
 * with a message that says what was wrong and what is accepted.
 */
export function parseTimeExpression(expr: string, ctx: TimeExpressionContext): TimeExpressionResult {
  const input = expr.trim();
  const lower = input.toLowerCase().replace(/\s+/g, " ");
  if (lower === "") return fail("the expression is empty");
  if (lower === "now") return { ok: true, ms: ctx.now };
  const dayOffset = lower === "today" ? 0 : lower === "yesterday" ? -1 : lower === "tomorrow" ? 1 : undefined;
  if (dayOffset !== undefined) return civilMidnight(ctx, dayOffset);
  if (/^\d{10}$/.test(lower)) return { ok: true, ms: Number(lower) * 1000 };
  if (/^\d{13}$/.test(lower)) return { ok: true, ms: Number(lower) };
  const date = DATE_TIME.exec(input);
  if (date !== null) return dateTime(date, ctx);
  const relative = parseRelative(lower);
  if (relative !== undefined) {
    return typeof relative === "string" ? fail(relative) : { ok: true, ms: ctx.now + relative };
  }
  return fail(`cannot read ${JSON.stringify(input)} as a time`);
}

function fail(reason: string): TimeExpressionResult {
  return { ok: false, error: `${reason}. Accepted: ${TIME_EXPRESSION_HELP}` };
}

function civilMidnight(ctx: TimeExpressionContext, days: number): TimeExpressionResult {
  const today = civilAt(ctx.now, ctx.timeZone);
  const shifted = new Date(Date.UTC(today.year, today.month - 1, today.day + days));
  const t: CivilTime = {
    year: shifted.getUTCFullYear(),
    month: shifted.getUTCMonth() + 1,
    day: shifted.getUTCDate(),
    hour: 0,
    minute: 0,
    second: 0,
  };
  const instant = civilToInstant(t, ctx.timeZone);
  return "ms" in instant ? { ok: true, ms: instant.ms } : { ok: false, error: instant.error };
}

function dateTime(m: RegExpExecArray, ctx: TimeExpressionContext): TimeExpressionResult {
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const t: CivilTime = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
  };
  if (!isValidCivil(t)) return fail(`${m[0]} is not a valid calendar date and time`);
  const fraction = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  if (zone === undefined) {
    const instant = civilToInstant(t, ctx.timeZone);
    return "ms" in instant ? { ok: true, ms: instant.ms + fraction } : { ok: false, error: instant.error };
  }
  const utc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) + fraction;
  if (zone === "Z" || zone === "z") return { ok: true, ms: utc };
  const offset = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  const hours = Number(offset?.[2]);
  const minutes = Number(offset?.[3]);
  if (offset === null || hours > 23 || minutes > 59) return fail(`the offset ${zone} is not valid`);
  const sign = offset[1] === "-" ? -1 : 1;
  return { ok: true, ms: utc - sign * (hours * 60 + minutes) * 60_000 };
}

/** A signed duration in ms, an error string, or undefined when the text is not a duration. */
function parseRelative(lower: string): number | string | undefined {
  let text = lower;
  let direction: 1 | -1 | undefined;
  const setDirection = (d: 1 | -1): string | undefined => {
    if (direction !== undefined && direction !== d)
      return `"${lower}" points both to the past and the future`;
    direction = d;
    return undefined;
  };
  const prefix = /^(in|next|last|\+|-)\s*/.exec(text);
  if (prefix !== null) {
    const conflict = setDirection(prefix[1] === "in" || prefix[1] === "next" || prefix[1] === "+" ? 1 : -1);
    if (conflict !== undefined) return conflict;
    text = text.slice(prefix[0].length);
  }
  const suffix = /\s*(ago|from now|later|hence)$/.exec(text);
  if (suffix !== null) {
    const conflict = setDirection(suffix[1] === "ago" ? -1 : 1);
    if (conflict !== undefined) return conflict;
    text = text.slice(0, suffix.index);
  }
  const parts = /^(?:\s*(?:and\s+|,\s*)?\d+(?:\.\d+)?\s*[a-z]+)+$/.test(text)
    ? [...text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)]
    : undefined;
  if (parts === undefined || parts.length === 0) return undefined;
  let total = 0;
  for (const [, amount, word] of parts) {
    const unit = Object.hasOwn(UNIT_WORDS, word ?? "") ? UNIT_WORDS[word ?? ""] : undefined;
    if (unit === undefined) return `unknown time unit "${word}" (use s, m, h, d or w, or their long forms)`;
    total += Number(amount) * (UNIT_MS[unit] ?? 0);
  }
  return Math.round(total) * (direction ?? -1);
}
