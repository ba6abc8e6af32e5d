import { type JsonValue, validationError } from "@tinyagents/inference";
import type { FilterOperators, StoreFilter } from "../contracts/namespaced-store.js";
import { jsonEqual } from "../encoding/json-equal.js";

export type { FilterOperators, StoreFilter } from "../contracts/namespaced-store.js";

const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in"]);

/** Validate a filter up front so a typo fails loudly instead of matching nothing. */
export function validateFilter(filter: unknown): asserts filter is StoreFilter {
  if (filter === null || typeof filter !== "object" || Array.isArray(filter)) {
    throw validationError("search filter must be an object of { field: value | { $op: value } }", {
      field: "filter",
    });
  }
  for (const [field, condition] of Object.entries(filter)) {
    if (!isOperatorObject(condition)) continue;
    for (const [op, operand] of Object.entries(condition)) {
      if (!OPERATORS.has(op)) {
        throw validationError(
          `unknown filter operator ${op} on "${field}"; use one of ${[...OPERATORS].join(", ")}`,
          { field: `filter.${field}` },
        );
      }
      if (op === "$in" && !Array.isArray(operand)) {
        throw validationError(`filter operator $in on "${field}" needs an array`, {
          field: `filter.${field}`,
        });
      }
    }
  }
}

/** True when `value` satisfies every condition of `filter`. */
export function matchesFilter(value: JsonValue, filter: StoreFilter): boolean {
  for (const [field, condition] of Object.entries(filter)) {
    const actual = readPath(value, field);
    if (!isOperatorObject(condition)) {
      if (actual === undefined || !jsonEqual(actual, condition as JsonValue)) return false;
      continue;
    }
    for (const [op, operand] of Object.entries(condition)) {
      if (!applyOperator(op, actual, operand as JsonValue)) return false;
    }
  }
  return true;
}

function applyOperator(op: string, actual: JsonValue | undefined, operand: JsonValue): boolean {
  switch (op) {
    case "$eq":
      return actual !== undefined && jsonEqual(actual, operand);
    case "$ne":
      return actual === undefined || !jsonEqual(actual, operand);
    case "$in":
      return (
        actual !== undefined && (operand as JsonValue[]).some((candidate) => jsonEqual(actual, candidate))
      );
    default: {
      if (!comparable(actual, operand)) return false;
      const a = actual as number | string;
      const b = operand as number | string;
      if (op === "$gt") return a > b;
      if (op === "$gte") return a >= b;
      if (op === "$lt") return a < b;
      return a <= b;
    }
  }
}

function comparable(a: JsonValue | undefined, b: JsonValue): boolean {
  return (typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string");
}

function isOperatorObject(condition: unknown): condition is FilterOperators {
  if (condition === null || typeof condition !== "object" || Array.isArray(condition)) return false;
  const keys = Object.keys(condition);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}

/** Read a dotted path from a JSON value; undefined when any step is missing. */
function readPath(value: JsonValue, path: string): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = (current as Record<string, JsonValue>)[part];
    if (current === undefined) return undefined;
  }
  return current;
}
