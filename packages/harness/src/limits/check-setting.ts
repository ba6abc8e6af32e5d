import { validationError } from "@tinyagents/inference";

/** What a numeric setting must be. */
export interface NumberRule {
  /** Smallest allowed value (inclusive). */
  min: number;
  /** Largest allowed value (inclusive; default: none). */
  max?: number;
  /** Must be a whole number. */
  integer?: boolean;
}

/**
 * The one check every limit and retry setting goes through, whichever way it enters (the
 * harness policy, `withPolicy`, `RunConfig`, per-run options, the retry middleware): `value`
 * must be a finite number (not `NaN`, not a string, not `Infinity`) within `rule`, else a
 * `validation` error whose message names `where` and `field` and says what is allowed, with
 * `details.field`. Limits fail closed: a value that cannot be enforced is refused, never ignored.
 */
export function checkSetting(where: string, field: string, value: unknown, rule: NumberRule): number {
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value >= rule.min &&
    (rule.max === undefined || value <= rule.max) &&
    (rule.integer !== true || Number.isInteger(value));
  if (ok) return value as number;
  const kind = rule.integer === true ? "an integer" : "a finite number";
  const range = rule.max === undefined ? `>= ${rule.min}` : `from ${rule.min} to ${rule.max}`;
  throw validationError(
    `${where}: \`${field}\` must be ${kind} ${range}, got ${describeValue(value)}; fix the setting (limits fail closed, so an unusable value is refused rather than ignored)`,
    { field },
  );
}

/** Check `value` only when it is present. */
export function checkOptionalSetting(
  where: string,
  field: string,
  value: unknown,
  rule: NumberRule,
): number | undefined {
  return value === undefined ? undefined : checkSetting(where, field, value, rule);
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  if (typeof value === "number") return String(value);
  if (value === null) return "null";
  return `a value of type ${typeof value}`;
}
