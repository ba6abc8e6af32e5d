import { isJsonObject, type JsonObject, type JsonValue } from "../../json/json-value.js";

/**
 * Project a JSON Schema onto what OpenAI's strict mode (Structured Outputs) accepts: at every
 * object level all properties are listed in `required` and `additionalProperties` is `false`;
 * a property that was optional becomes nullable instead (`type: [T, "null"]`, or
 * `anyOf: [..., {type: "null"}]` when it has no simple type), so the model can still omit it by
 * answering `null`. Recurses through `properties`, `items`, `prefixItems`, `anyOf`, `oneOf`,
 * `allOf`, `$defs` / `definitions` and `not`. The input is not modified.
 */
export function toStrictSchema(schema: JsonObject): JsonObject {
  return project(schema) as JsonObject;
}

function project(node: JsonValue): JsonValue {
  if (Array.isArray(node)) return node.map(project);
  if (!isJsonObject(node)) return node;
  const out: JsonObject = {};
  for (const key of Object.keys(node)) {
    const value = node[key]!;
    switch (key) {
      case "properties":
      case "$defs":
      case "definitions":
        out[key] = isJsonObject(value) ? mapValues(value, project) : value;
        break;
      case "items":
      case "prefixItems":
      case "anyOf":
      case "oneOf":
      case "allOf":
      case "not":
        out[key] = project(value);
        break;
      default:
        out[key] = value;
    }
  }
  if (isObjectSchema(out)) {
    const properties = isJsonObject(out.properties) ? out.properties : {};
    const required = new Set(
      Array.isArray(out.required) ? out.required.filter((r) => typeof r === "string") : [],
    );
    const names = Object.keys(properties);
    const nextProperties: JsonObject = {};
    for (const name of names) {
      const property = properties[name]!;
      nextProperties[name] = required.has(name) ? property : nullable(property);
    }
    out.properties = nextProperties;
    out.required = names;
    out.additionalProperties = false;
  }
  return out;
}

function isObjectSchema(node: JsonObject): boolean {
  const type = node.type;
  if (type === "object") return true;
  if (Array.isArray(type) && type.includes("object")) return true;
  return type === undefined && isJsonObject(node.properties);
}

function nullable(schema: JsonValue): JsonValue {
  if (!isJsonObject(schema)) return schema;
  const type = schema.type;
  if (typeof type === "string") {
    if (type === "null") return schema;
    const out: JsonObject = { ...schema, type: [type, "null"] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(type)) return type.includes("null") ? schema : { ...schema, type: [...type, "null"] };
  if (Array.isArray(schema.anyOf)) {
    const hasNull = schema.anyOf.some((option) => isJsonObject(option) && option.type === "null");
    return hasNull ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  }
  return { anyOf: [schema, { type: "null" }] };
}

function mapValues(object: JsonObject, fn: (value: JsonValue) => JsonValue): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(object)) out[key] = fn(object[key]!);
  return out;
}
