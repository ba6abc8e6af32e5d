import { validationError } from "@tinyagents/inference";

/**
 * The canonical JSON text of `value`: `JSON.stringify` semantics with object keys sorted by
 * UTF-16 code unit order at every level and no whitespace, so two equal JSON values always have
 * byte-identical text whatever their key insertion order. Used for prompt fingerprints, response
 * cache keys, message ids and template rendering.
 *
 * Like `JSON.stringify`: `undefined`, functions and symbols are omitted from objects and become
 * `null` in arrays; non-finite numbers become `null`; `toJSON()` is honoured (Dates).
 * Throws a `validation` error on cycles and on bigints (they have no JSON form).
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set()) ?? "null";
}

function write(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "bigint":
      throw validationError("canonicalJson: a bigint has no JSON form; convert it to a string or number", {
        field: "value",
      });
  }
  if (value === null) return "null";
  const object = value as { toJSON?: () => unknown };
  if (typeof object.toJSON === "function") return write(object.toJSON(), seen);
  if (seen.has(object)) {
    throw validationError("canonicalJson: the value contains a cycle; only plain JSON data can be hashed", {
      field: "value",
    });
  }
  seen.add(object);
  let out: string;
  if (Array.isArray(object)) {
    out = "[";
    for (let i = 0; i < object.length; i++) {
      if (i > 0) out += ",";
      out += write(object[i], seen) ?? "null";
    }
    out += "]";
  } else {
    const record = object as Record<string, unknown>;
    const keys = Object.keys(record).sort(compareKeys);
    out = "{";
    let first = true;
    for (const key of keys) {
      const text = write(record[key], seen);
      if (text === undefined) continue;
      if (!first) out += ",";
      first = false;
      out += JSON.stringify(key) + ":" + text;
    }
    out += "}";
  }
  seen.delete(object);
  return out;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
