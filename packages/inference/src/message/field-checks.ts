import { validationError } from "../errors/tinyagents-error.js";
import type { JsonObject } from "../json/json-value.js";
import { assertJsonValue } from "./assert-json.js";

/**
 * Small building blocks for validating untrusted input. Every failure is a `validation`
 * `TinyAgentsError` whose message starts with the field path and whose `details.field` is it.
 * Internal to the package (not part of the public API).
 */

/** Throw a validation error for `field`: `"<field>: <problem>"`. */
export function fail(field: string, problem: string): never {
  throw validationError(`${field}: ${problem}`, { field });
}

/** A short description of a value's kind, for error messages. */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing (the field is missing)";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return value.length > 40 ? "a string" : `the string ${JSON.stringify(value)}`;
  if (typeof value === "number") return `the number ${String(value)}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** A plain (non-null, non-array) object, or throw. */
export function expectObject(value: unknown, field: string, what = "an object"): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail(field, `expected ${what}, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

/** An array, or throw. */
export function expectArray(value: unknown, field: string, what = "an array"): unknown[] {
  if (!Array.isArray(value)) fail(field, `expected ${what}, got ${describe(value)}`);
  return value;
}

/** A string (non-empty when `nonEmpty`), or throw. */
export function expectString(value: unknown, field: string, nonEmpty = false): string {
  if (typeof value !== "string") fail(field, `expected a string, got ${describe(value)}`);
  if (nonEmpty && value === "") fail(field, "must be a non-empty string");
  return value;
}

/** A boolean, or throw. */
export function expectBoolean(value: unknown, field: string): boolean {
  if (typeof value !== "boolean") fail(field, `expected true or false, got ${describe(value)}`);
  return value;
}

/** Bounds for {@link expectNumber}. */
export interface NumberRule {
  min?: number;
  max?: number;
  integer?: boolean;
}

/** A finite number within the rule's bounds, or throw. */
export function expectNumber(value: unknown, field: string, rule: NumberRule = {}): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    fail(field, `expected a finite number, got ${describe(value)}`);
  }
  if (rule.integer === true && !Number.isInteger(value)) fail(field, `expected an integer, got ${value}`);
  if (rule.min !== undefined && value < rule.min) fail(field, `must be >= ${rule.min}, got ${value}`);
  if (rule.max !== undefined && value > rule.max) fail(field, `must be <= ${rule.max}, got ${value}`);
  return value;
}

/** One of a closed list of strings, or throw naming the allowed values. */
export function expectOneOf<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
  what = "value",
): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    const got = typeof value === "string" ? `"${value}"` : describe(value);
    fail(field, `unknown ${what} ${got}; expected one of ${allowed.join(", ")}`);
  }
  return value as T;
}

/** A plain JSON object (deeply checked), or throw. */
export function expectJsonObject(value: unknown, field: string, what = "a JSON object"): JsonObject {
  expectObject(value, field, what);
  assertJsonValue(value, field);
  return value as JsonObject;
}

/** Run `check` on `record[key]` when it is present (not `undefined`). */
export function optional(
  record: Record<string, unknown>,
  key: string,
  path: string,
  check: (value: unknown, field: string) => unknown,
): void {
  const value = record[key];
  if (value !== undefined) check(value, join(path, key));
}

/** `path.key`, or just `key` at the top level. */
export function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
