import { isJsonObject, type JsonValue } from "@tinyagents/inference";

/**
 * Whether `value` has the JSON Schema type `type` (`null`, `boolean`, `string`, `number`,
 * `integer` — a number with no fractional part —, `array`, `object`). Unknown types never match.
 */
export function matchesJsonType(value: JsonValue, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "boolean":
      return typeof value === "boolean";
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return isJsonObject(value);
    default:
      return false;
  }
}

/** The JSON type name of `value`: `null`, `array`, `object`, `string`, `number` or `boolean`. */
export function jsonTypeOf(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}
