import { validationError } from "../errors/tinyagents-error.js";
import type { JsonValue } from "../json/json-value.js";

/**
 * Throw a `validation` error naming the offending path unless `value` is plain JSON data that
 * survives `JSON.parse(JSON.stringify(x))` unchanged: no `undefined`, functions, symbols,
 * bigints, non-finite numbers, class instances (other than plain objects/arrays) or cycles.
 */
export function assertJsonValue(value: unknown, path: string): asserts value is JsonValue {
  check(value, path, []);
}

function check(value: unknown, path: string, ancestors: object[]): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) fail(path, `${String(value)} is not a finite number`);
      return;
    case "object":
      break;
    default:
      fail(path, `${value === undefined ? "undefined" : `a ${typeof value}`} is not JSON data`);
  }
  if (value === null) return;
  if (ancestors.includes(value as object)) fail(path, "the value contains a cycle");
  ancestors.push(value as object);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) check(value[i], `${path}[${i}]`, ancestors);
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      fail(path, `a ${(value as object).constructor?.name ?? "class"} instance is not plain JSON data`);
    }
    for (const key of Object.keys(value as object)) {
      check((value as Record<string, unknown>)[key], `${path}.${key}`, ancestors);
    }
  }
  ancestors.pop();
}

function fail(path: string, problem: string): never {
  throw validationError(
    `${path}: ${problem}; use only strings, finite numbers, booleans, null, arrays and plain objects`,
    {
      field: path,
    },
  );
}
