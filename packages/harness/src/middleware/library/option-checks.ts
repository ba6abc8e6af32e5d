import { type JsonObject, TinyAgentsError } from "@tinyagents/inference";

/**
 * A `validation` error for a misconfigured middleware: names the middleware and the option, says
 * what is wrong and what to do. `details` carries `{ middleware, option }`.
 */
export function optionError(
  middleware: string,
  option: string,
  problem: string,
  extra?: JsonObject,
): TinyAgentsError {
  return new TinyAgentsError("validation", `${middleware}: option \`${option}\` ${problem}`, {
    details: { middleware, option, ...extra },
  });
}

/** `value` as a finite number >= 0 (an integer when `integer`), or a `validation` error naming the option. */
export function nonNegative(middleware: string, option: string, value: unknown, integer = false): number {
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < 0 ||
    (integer && !Number.isInteger(value))
  ) {
    const kind = integer ? "a non-negative integer" : "a non-negative finite number";
    throw optionError(middleware, option, `must be ${kind}, got ${describe(value)}`);
  }
  return value;
}

/** `value` as a finite number > 0 (an integer when `integer`), or a `validation` error naming the option. */
export function positive(middleware: string, option: string, value: unknown, integer = false): number {
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value <= 0 ||
    (integer && !Number.isInteger(value))
  ) {
    const kind = integer ? "a positive integer" : "a positive finite number";
    throw optionError(middleware, option, `must be ${kind}, got ${describe(value)}`);
  }
  return value;
}

/** `value` as a number in (0, 1], or a `validation` error naming the option. */
export function fraction(middleware: string, option: string, value: unknown): number {
  if (typeof value !== "number" || !(value > 0 && value <= 1)) {
    throw optionError(middleware, option, `must be a fraction in (0, 1], got ${describe(value)}`);
  }
  return value;
}

/** `value` as an array of non-empty strings, or a `validation` error naming the option. */
export function stringList(middleware: string, option: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string" || item === "")) {
    throw optionError(middleware, option, `must be an array of non-empty strings, got ${describe(value)}`);
  }
  return [...(value as string[])];
}

/** `value` as a function, or a `validation` error naming the option. */
export function callable<F>(middleware: string, option: string, value: F): F {
  if (typeof value !== "function")
    throw optionError(middleware, option, `must be a function, got ${describe(value)}`);
  return value;
}

/** A middleware name: the given one (checked) or the default. */
export function middlewareName(fallback: string, name: unknown): string {
  if (name === undefined) return fallback;
  if (typeof name !== "string" || name === "")
    throw optionError(fallback, "name", "must be a non-empty string");
  return name;
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
