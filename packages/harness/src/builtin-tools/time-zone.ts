/**
 * Time-zone arithmetic on top of `Intl` (IANA zone names, no dependency): validity, the zone's
 * offset at an instant, civil time -> instant (rejecting DST gaps and overlaps), RFC 3339.
 */

/** A civil (wall-clock) date and time; months are 1-12. */
export interface CivilTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
    if (formatters.size > 500) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/** True when `timeZone` is an IANA zone name (or `UTC`) this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== "string" || timeZone.trim() === "") return false;
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The zone this machine runs in (`Intl`'s resolved zone, `UTC` when unknown). */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC";
}

/** The civil time and weekday at `instantMs` in `timeZone` (seconds precision). */
export function civilAt(instantMs: number, timeZone: string): CivilTime & { weekday: string } {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(instantMs))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: parts.weekday ?? "",
  };
}

/** The zone's UTC offset at `instantMs`, in minutes (Tokyo: +540). */
export function offsetMinutes(instantMs: number, timeZone: string): number {
  const c = civilAt(instantMs, timeZone);
  const asUtc = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
  return Math.round((asUtc - Math.floor(instantMs / 1000) * 1000) / 60_000);
}

/** `+09:00` / `-05:30` / `Z` for an offset in minutes. */
export function formatOffset(minutes: number): string {
  if (minutes === 0) return "Z";
  const sign = minutes > 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** RFC 3339 with seconds, in `timeZone` (`2025-01-01T09:00:00+09:00`; UTC gives `...Z`). */
export function formatRfc3339(instantMs: number, timeZone = "UTC"): string {
  const c = civilAt(instantMs, timeZone);
  return `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}T${pad(c.hour)}:${pad(c.minute)}:${pad(c.second)}${formatOffset(offsetMinutes(instantMs, timeZone))}`;
}

/** True when the fields form a real calendar date and time (leap years included). */
export function isValidCivil(t: CivilTime): boolean {
  if (![t.year, t.month, t.day, t.hour, t.minute, t.second].every(Number.isInteger)) return false;
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.hour > 23 || t.minute > 59 || t.second > 59) return false;
  if (t.hour < 0 || t.minute < 0 || t.second < 0) return false;
  const daysInMonth = new Date(Date.UTC(t.year, t.month, 0)).getUTCDate();
  return t.day <= daysInMonth;
}

/**
 * The instant at which `timeZone`'s clocks show `t`. Errors (as `{ error }`) when the civil
 * time does not exist there (skipped by a DST change) or exists twice (repeated by one).
 */
export function civilToInstant(t: CivilTime, timeZone: string): { ms: number } | { error: string } {
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);
  const offsets = new Set(
    [-86_400_000, 0, 86_400_000].map((delta) => offsetMinutes(asUtc + delta, timeZone)),
  );
  const matches = new Set<number>();
  for (const offset of offsets) {
    const ms = asUtc - offset * 60_000;
    const back = civilAt(ms, timeZone);
    if (
      back.year === t.year &&
      back.month === t.month &&
      back.day === t.day &&
      back.hour === t.hour &&
      back.minute === t.minute &&
      back.second === t.second
    ) {
      matches.add(ms);
    }
  }
  const shown = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
  if (matches.size === 0) {
    return { error: `${shown} does not exist in ${timeZone} (skipped by a daylight-saving change)` };
  }
  if (matches.size > 1) {
    return {
      error: `${shown} is ambiguous in ${timeZone} (it happens twice around a daylight-saving change); give an explicit offset such as ${shown.replace(" ", "T")}+01:00`,
    };
  }
  return { ms: [...matches][0] as number };
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}
