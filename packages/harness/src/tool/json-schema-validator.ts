import { type OutputUnit, type SchemaDraft, Validator } from "@cfworker/json-schema";
import { isJsonObject, type JsonObject, type JsonValue, validationError } from "@tinyagents/inference";
import { formatSchemaIssues } from "./json-schema-issues.js";
import { resolveSchemaRef } from "./json-schema-ref.js";

/**
 * A JSON Schema (or a boolean schema: `true` accepts anything, `false` nothing), as used by
 * {@link validateAgainstSchema}.
 */
export type JsonSchema = JsonObject | boolean;

/** A schema compiled once (see {@link compileSchema}); `validate` returns the issues, `[]` when valid. */
export interface CompiledSchema {
  validate(value: JsonValue, path?: string): string[];
}

/**
 * Assertion keywords the validator does not implement: a schema using one (anywhere) fails
 * closed, refusing every value with an issue naming the keyword.
 */
export const UNCHECKED_KEYWORDS: readonly string[] = ["$dynamicRef", "$dynamicAnchor"];

const cache = new WeakMap<JsonObject, CompiledSchema>();

/**
 * Compile a JSON Schema once for repeated validation. The checking is done by
 * `@cfworker/json-schema` (dependency-free, edge-safe, runs the official JSON Schema Test
 * Suite): draft 2020-12 by default, or the draft its `$schema` names (draft-04, draft-06/07,
 * 2019-09). Every assertion keyword of the draft is checked, and `format` is asserted for the
 * formats the library knows (email, uri, date-time, uuid, ...). OpenAPI `nullable: true` also
 * admits `null`. Fails closed: a schema using a keyword it cannot check (`UNCHECKED_KEYWORDS`),
 * or a `$ref` that does not resolve within the schema (remote refs are never fetched), refuses
 * every value with an issue that says so. The caller's schema object is not modified.
 */
export function compileSchema(schema: JsonSchema): CompiledSchema {
  if (typeof schema === "boolean") {
    return { validate: (_value, path = "$") => (schema ? [] : [`${path}: no value is allowed here`]) };
  }
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const compiled = compile(schema);
  cache.set(schema, compiled);
  return compiled;
}

/**
 * Validate `value` against a JSON Schema and return human-readable issues, each prefixed by the
 * JSON path of the offending value (`$.city: expected string, got number`). An empty array means
 * valid. Never throws. Compiles `schema` on first use and reuses it for the same object (see
 * {@link compileSchema} for what is checked).
 */
export function validateAgainstSchema(schema: JsonSchema, value: JsonValue, path = "$"): string[] {
  return compileSchema(schema).validate(value, path);
}

function compile(schema: JsonObject): CompiledSchema {
  const unchecked = findKeyword(schema, UNCHECKED_KEYWORDS);
  if (unchecked !== undefined) {
    return refuse(
      `the schema uses "${unchecked}", which this validator cannot check, so the value is refused (fail closed); remove the keyword or validate in the tool`,
    );
  }
  const badPattern = findInvalidPattern(schema);
  if (badPattern !== undefined) {
    return refuse(
      `the schema pattern ${JSON.stringify(badPattern)} is not a valid regular expression, so the value is refused (fail closed)`,
    );
  }
  const draft = draftOf(schema);
  const prepared = normalize(schema, draft);
  const validator = new Validator(prepared as never, draft, false);
  return {
    validate(value, path = "$") {
      try {
        const result = validator.validate(value);
        return result.valid ? [] : formatSchemaIssues(result.errors as OutputUnit[], value, path, prepared);
      } catch (error) {
        return [`${path}: ${schemaFailure(error)}`];
      }
    },
  };
}

function refuse(reason: string): CompiledSchema {
  return { validate: (_value, path = "$") => [`${path}: ${reason}`] };
}

/** Why the library could not check a value (it throws on unresolvable refs and runaway recursion). */
function schemaFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const ref = /^Unresolved \$ref "([^"]*)"/.exec(message);
  if (ref !== null) {
    return `schema $ref ${JSON.stringify(ref[1])} cannot be resolved within the schema (remote refs are not fetched), so the value is refused (fail closed)`;
  }
  if (error instanceof RangeError) {
    return "the schema's $refs are circular and never reach a concrete schema, so the value is refused (fail closed)";
  }
  return `the schema could not be checked (${message.split("\n")[0]}), so the value is refused (fail closed)`;
}

function draftOf(schema: JsonObject): SchemaDraft {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  if (declared.includes("draft-04")) return "4";
  if (declared.includes("draft-06") || declared.includes("draft-07")) return "7";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Keywords whose value is a schema, a list of schemas, or a map of schemas. */
const SUBSCHEMA_KEYWORDS = {
  one: [
    "additionalProperties",
    "items",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
  ],
  list: ["allOf", "anyOf", "oneOf", "prefixItems", "items"],
  map: ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"],
} as const;

/** Call `visit` on `schema` and every subschema reachable through the keywords above. */
function eachSubschema(schema: JsonValue, visit: (node: JsonObject) => void): void {
  if (!isJsonObject(schema)) return;
  visit(schema);
  for (const key of SUBSCHEMA_KEYWORDS.one) {
    const child = schema[key];
    if (child !== undefined && !Array.isArray(child)) eachSubschema(child, visit);
  }
  for (const key of SUBSCHEMA_KEYWORDS.list) {
    const child = schema[key];
    if (Array.isArray(child)) for (const item of child) eachSubschema(item, visit);
  }
  for (const key of SUBSCHEMA_KEYWORDS.map) {
    const child = schema[key];
    if (isJsonObject(child)) for (const item of Object.values(child)) eachSubschema(item, visit);
  }
}

function findKeyword(schema: JsonObject, keywords: readonly string[]): string | undefined {
  let found: string | undefined;
  eachSubschema(schema, (node) => {
    found ??= keywords.find((keyword) => node[keyword] !== undefined);
  });
  return found;
}

/** The first `pattern` or `patternProperties` key that is not a valid Unicode regular expression. */
function findInvalidPattern(schema: JsonObject): string | undefined {
  let found: string | undefined;
  eachSubschema(schema, (node) => {
    const patterns = [
      ...(typeof node.pattern === "string" ? [node.pattern] : []),
      ...(isJsonObject(node.patternProperties) ? Object.keys(node.patternProperties) : []),
    ];
    for (const pattern of patterns) {
      try {
        new RegExp(pattern, "u");
      } catch {
        found ??= pattern;
      }
    }
  });
  return found;
}

/**
 * A deep copy of `schema` (the library annotates the objects it is given) in which OpenAPI
 * `nullable: true` becomes an explicit `"null"` in `type` (and in `enum`, when present), and,
 * unless the schema declares draft-04, draft-04's boolean `exclusiveMinimum`/`exclusiveMaximum`
 * become the numeric form of later drafts (so schemas written for either keep their meaning).
 * For draft-04/07, the `$id` beside a `$ref` is dropped, as those drafts ignore it.
 */
function normalize(schema: JsonObject, draft: SchemaDraft): JsonObject {
  const copy = structuredClone(schema);
  eachSubschema(copy, (node) => {
    // Up to draft-07 a $ref's siblings are ignored, $id included (the library would rebase on it).
    if ((draft === "4" || draft === "7") && typeof node.$ref === "string") {
      delete node.$id;
      delete node.id;
    }
    if (draft !== "4") {
      for (const [exclusive, bound] of [
        ["exclusiveMinimum", "minimum"],
        ["exclusiveMaximum", "maximum"],
      ] as const) {
        if (typeof node[exclusive] !== "boolean") continue;
        if (node[exclusive] === true && typeof node[bound] === "number") {
          node[exclusive] = node[bound];
          delete node[bound];
        } else delete node[exclusive];
      }
    }
    if (node.nullable !== true) return;
    if (typeof node.type === "string") node.type = [node.type, "null"];
    else if (Array.isArray(node.type) && !node.type.includes("null")) node.type = [...node.type, "null"];
    if (Array.isArray(node.enum) && !node.enum.includes(null)) node.enum = [...node.enum, null];
  });
  return copy;
}

/**
 * Throw a `validation` error unless `schema` describes an object of named arguments: a JSON
 * object whose top level has `type: "object"` (or a type list containing `"object"`), or no
 * `type` but `properties`. A top-level `$ref` is followed once. Used when a tool is defined
 * and when it is registered.
 */
export function assertObjectSchema(schema: unknown, toolName: string): asserts schema is JsonObject {
  const target =
    isJsonObject(schema) && typeof schema.$ref === "string" ? resolveSchemaRef(schema, schema.$ref) : schema;
  if (isJsonObject(target)) {
    const type = target.type;
    if (type === "object" || (Array.isArray(type) && type.includes("object"))) return;
    if (type === undefined && isJsonObject(target.properties)) return;
  }
  const got = !isJsonObject(target)
    ? `${target === null ? "null" : Array.isArray(target) ? "an array" : `a ${typeof target}`} instead of a schema object`
    : target.type === undefined
      ? "a schema without `type` or `properties`"
      : `a schema of type ${JSON.stringify(target.type)}`;
  throw validationError(
    `tool "${toolName}": the input schema must describe an object (type "object"), got ${got}. ` +
      `Tools take an object of named arguments; wrap the value in a property, e.g. ` +
      `{ type: "object", properties: { value: <your schema> }, required: ["value"] }`,
    { field: "inputSchema", tool: toolName },
  );
}
