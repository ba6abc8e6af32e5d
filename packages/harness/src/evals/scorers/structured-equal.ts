import { isJsonObject, type JsonValue, validationError } from "@tinyagents/inference";
import { jsonEqual } from "../../encoding/json-equal.js";
import type { Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";

/** Options of {@link structuredEqual}. */
export interface StructuredEqualOptions extends ScorerOptions {
  /** The value to compare with (default: the case's `expectedStructured`). */
  expected?: JsonValue;
  /** Compare only the keys the expected object has, at every level (default false: exact). */
  partial?: boolean;
}

/**
 * 1 when `run.structured` deep-equals the expected value (object key order ignored), else 0; the
 * reason names the first differing path. Name `structured`, threshold 1.
 */
export function structuredEqual(options: StructuredEqualOptions = {}): Scorer {
  const partial = options.partial ?? false;
  return makeScorer("structured", 1, options, (context) => {
    const expected = options.expected ?? context.case.expectedStructured;
    if (expected === undefined) {
      throw validationError(
        `scorer "${options.name ?? "structured"}": case "${context.case.id}" has no "expectedStructured"; add one or give the scorer a value`,
        { field: "expectedStructured", caseId: context.case.id },
      );
    }
    if (context.structured === undefined) return { score: 0, reason: "the run produced no structured value" };
    const difference = firstDifference(expected, context.structured, "$", partial);
    return difference === undefined
      ? { score: 1, reason: "structured value equals the expected one" }
      : { score: 0, reason: difference };
  });
}

/** Where two JSON values first differ (`$.city: expected "Paris", got "Lyon"`), or undefined. */
function firstDifference(
  expected: JsonValue,
  actual: JsonValue | undefined,
  path: string,
  partial: boolean,
): string | undefined {
  if (actual === undefined) return `${path}: missing (expected ${short(expected)})`;
  if (isJsonObject(expected) && isJsonObject(actual)) {
    for (const key of Object.keys(expected)) {
      const found = firstDifference(expected[key] as JsonValue, actual[key], `${path}.${key}`, partial);
      if (found !== undefined) return found;
    }
    if (!partial) {
      const extra = Object.keys(actual).find((key) => !Object.hasOwn(expected, key));
      if (extra !== undefined)
        return `${path}.${extra}: unexpected key (got ${short(actual[extra] as JsonValue)})`;
    }
    return undefined;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length)
      return `${path}: expected ${expected.length} items, got ${actual.length}`;
    for (const [i, item] of expected.entries()) {
      const found = firstDifference(item, actual[i], `${path}[${i}]`, partial);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return jsonEqual(expected, actual)
    ? undefined
    : `${path}: expected ${short(expected)}, got ${short(actual)}`;
}

function short(value: JsonValue): string {
  const json = JSON.stringify(value) ?? "undefined";
  return json.length > 60 ? `${json.slice(0, 59)}…` : json;
}
