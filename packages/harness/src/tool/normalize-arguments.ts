import { isJsonObject, type JsonObject, type JsonValue, type ToolCall } from "@tinyagents/inference";
import { extractJsonObject } from "./extract-json.js";
import { resolveSchemaRef } from "./json-schema-ref.js";
import { validateAgainstSchema } from "./json-schema-validator.js";

/** What {@link normalizeToolArguments} produced. */
export interface NormalizedArguments {
  /** The arguments to validate again (and run with, if valid). */
  arguments: JsonObject;
  /** Whether any repair was applied. */
  changed: boolean;
  /** Human-readable list of the repairs applied (`"; "`-separated); absent when unchanged. */
  how?: string;
}

/** Envelope keys models wrap real arguments in. */
const ENVELOPE_KEYS = ["arguments", "args", "parameters", "params", "input", "properties"];

/**
 * Best-effort repair of a tool call's arguments, for the `normalizeThenReturnToolError`
 * invalid-arguments policy. Pure; never throws. The result is NOT guaranteed valid: validate it
 * again and return a tool error if it still fails. Repairs, in order:
 * 1. `call.invalid` (unparseable raw text): JSON inside markdown fences, a JSON object with junk
 *    around it (the first complete `{...}`), or a JSON string holding JSON is parsed.
 * 2. When the arguments do not validate and consist of a single envelope key (`arguments`,
 *    `args`, `parameters`, `params`, `input`, `properties`) that is not a declared property,
 *    holding an object (or a JSON string of one) that validates against `schema`, it is unwrapped.
 * 3. A string value where the schema expects an object or array, holding JSON of that shape,
 *    is parsed (recursively through declared properties).
 * 4. If nothing usable remains (the raw text could not be recovered) and the schema has no
 *    `required` properties, the arguments become `{}`.
 */
export function normalizeToolArguments(call: ToolCall, schema: JsonObject): NormalizedArguments {
  const how: string[] = [];
  let args: JsonObject = call.arguments;
  let recovered = call.invalid === undefined;

  if (call.invalid !== undefined) {
    const parsed = extractJsonObject(call.invalid.raw);
    if (parsed !== undefined) {
      args = parsed.value;
      recovered = true;
      how.push(parsed.how);
    }
  }

  const unwrapped = unwrapEnvelope(args, schema);
  if (unwrapped !== undefined) {
    args = unwrapped.value;
    how.push(`unwrapped the arguments from the "${unwrapped.key}" envelope`);
  }

  const decoded: string[] = [];
  args = decodeStrings(args, schema, schema, "$", decoded, 0) as JsonObject;
  if (decoded.length > 0) how.push(`parsed JSON text in ${decoded.join(", ")}`);

  if (!recovered && Object.keys(args).length === 0 && !hasRequired(schema)) {
    args = {};
    how.push("ignored the unparseable arguments: the tool has no required arguments, so it gets {}");
  }

  return how.length === 0
    ? { arguments: args, changed: false }
    : { arguments: args, changed: true, how: how.join("; ") };
}

function unwrapEnvelope(
  args: JsonObject,
  schema: JsonObject,
): { key: string; value: JsonObject } | undefined {
  const keys = Object.keys(args);
  const key = keys[0];
  if (keys.length !== 1 || key === undefined || !ENVELOPE_KEYS.includes(key)) return undefined;
  if (isJsonObject(schema.properties) && Object.hasOwn(schema.properties, key)) return undefined;
  if (validateAgainstSchema(schema, args).length === 0) return undefined;
  const inner = parseIfJson(args[key] as JsonValue);
  if (!isJsonObject(inner)) return undefined;
  const candidate = decodeStrings(inner, schema, schema, "$", [], 0) as JsonObject;
  return validateAgainstSchema(schema, candidate).length === 0 ? { key, value: inner } : undefined;
}

/** Parse string values where `schema` expects an object/array and the text is JSON of that shape. */
function decodeStrings(
  value: JsonValue,
  schema: JsonValue | undefined,
  root: JsonObject,
  path: string,
  decoded: string[],
  depth: number,
): JsonValue {
  const resolved = resolve(schema, root);
  if (resolved === undefined || depth > 32) return value;
  if (typeof value === "string") {
    const wants = expects(resolved);
    if (!wants.object && !wants.array) return value;
    const parsed = parseIfJson(value);
    if ((wants.object && isJsonObject(parsed)) || (wants.array && Array.isArray(parsed))) {
      decoded.push(path);
      return decodeStrings(parsed, resolved, root, path, decoded, depth + 1);
    }
    return value;
  }
  if (isJsonObject(value) && isJsonObject(resolved.properties)) {
    const properties = resolved.properties;
    let out: JsonObject | undefined;
    for (const [key, child] of Object.entries(value)) {
      if (!Object.hasOwn(properties, key)) continue;
      const next = decodeStrings(child, properties[key], root, `${path}.${key}`, decoded, depth + 1);
      if (next !== child) {
        out ??= { ...value };
        out[key] = next;
      }
    }
    return out ?? value;
  }
  if (Array.isArray(value) && isJsonObject(resolved.items)) {
    const items = resolved.items;
    let changed = false;
    const mapped = value.map((item, i) => {
      const next = decodeStrings(item, items, root, `${path}[${i}]`, decoded, depth + 1);
      changed ||= next !== item;
      return next;
    });
    return changed ? mapped : value;
  }
  return value;
}

function resolve(schema: JsonValue | undefined, root: JsonObject): JsonObject | undefined {
  let current = schema;
  for (let hops = 0; hops < 8 && isJsonObject(current) && typeof current.$ref === "string"; hops++) {
    current = resolveSchemaRef(root, current.$ref);
  }
  return isJsonObject(current) ? current : undefined;
}

function expects(schema: JsonObject): { object: boolean; array: boolean } {
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.includes("string")) return { object: false, array: false };
  return {
    object: types.includes("object") || (types.length === 0 && isJsonObject(schema.properties)),
    array: types.includes("array") || (types.length === 0 && schema.items !== undefined),
  };
}

/**
 * A string value that holds JSON: an array as plain JSON text, an object through the same
 * composed decode steps as raw arguments (a JSON string, a fence, surrounding prose, nested).
 */
function parseIfJson(value: JsonValue): JsonValue {
  if (typeof value !== "string") return value;
  const text = value.trim();
  if (text.startsWith("[")) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return value;
    }
  }
  return extractJsonObject(text)?.value ?? value;
}

function hasRequired(schema: JsonObject): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}
