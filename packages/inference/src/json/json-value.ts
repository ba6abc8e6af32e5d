/** Any value that survives `JSON.parse(JSON.stringify(x))` unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A plain JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** True when `value` is a non-null, non-array object. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
