import { isJsonObject, type JsonObject, type JsonValue, validationError } from "@tinyagents/inference";
import { jsonEqual } from "./json-equal.js";
import { resolveSchemaRef } from "./json-schema-ref.js";
import { jsonTypeOf, matchesJsonType } from "./json-type.js";

/**
 * A JSON Schema (or a boolean schema: `true` accepts anything, `false` nothing), as used by
 * {@link validateAgainstSchema}.
 */
export type JsonSchema = JsonObject | boolean;

interface Walk {
  root: JsonSchema;
  /** `path + "\0" + ref` pairs being resolved at the current value: guards against `$ref` cycles. */
  activeRefs: Set<string>;
}

const patternCache = new Map<string, RegExp | null>();

/**
 * Validate `value` against a JSON Schema subset and return human-readable issues, each
 * prefixed by the JSON path of the offending value (`$.city: expected string, got number`).
 * An empty array means valid. Never throws.
 *
 * Supported: `type` (string or array; `integer` vs `number`; `null`), `nullable` (OpenAPI),
 * `enum`, `const`, `required`, `properties` (recursive), `patternProperties`,
 * `additionalProperties` (false or a schema), `minProperties`/`maxProperties`, `items` (schema,
 * or an array as tuple), `prefixItems`, `minItems`/`maxItems`, `uniqueItems`, `anyOf`, `oneOf`
 * (exactly one), `allOf`, `not`, `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`
 * (numeric or draft-04 boolean), `multipleOf`, `minLength`/`maxLength` (in code points),
 * `pattern` (Unicode regex), and `$ref` to `#`, `#/$defs/...`, `#/definitions/...` or any JSON
 * pointer within the root schema (cycles that never consume input are reported, not followed).
 * Also `contains` (with `minContains`/`maxContains`), `if`/`then`/`else`, `propertyNames`,
 * `dependentRequired`, `dependentSchemas` and draft-07 `dependencies`.
 * Annotations (`format`, `description`, `default`, `title`, `examples`, ...) are ignored.
 * Fails closed: a schema using an assertion keyword this validator cannot check
 * (`UNCHECKED_KEYWORDS`: `unevaluatedProperties`, `$dynamicRef`, ...) rejects every value
 * with an issue naming the keyword, so arguments the schema forbids never reach the tool.
 * `{}` and `true` accept anything.
 */
export function validateAgainstSchema(schema: JsonSchema, value: JsonValue, path = "$"): string[] {
  const issues: string[] = [];
  check(schema, value, path, { root: schema, activeRefs: new Set() }, issues);
  return issues;
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

function check(
  schema: JsonSchema | JsonValue,
  value: JsonValue,
  path: string,
  walk: Walk,
  out: string[],
): void {
  if (schema === true) return;
  if (schema === false) {
    out.push(`${path}: no value is allowed here`);
    return;
  }
  if (!isJsonObject(schema)) return; // not a schema: accept (lenient on malformed schemas)
  for (const keyword of UNCHECKED_KEYWORDS) {
    if (schema[keyword] !== undefined) {
      out.push(
        `${path}: the schema uses "${keyword}", which this validator cannot check, so the value is refused (fail closed); remove the keyword or validate in the tool`,
      );
      return;
    }
  }
  if (schema.nullable === true && value === null) return;

  if (typeof schema.$ref === "string") {
    const key = `${path}\u0000${schema.$ref}`;
    if (walk.activeRefs.has(key)) {
      out.push(
        `${path}: schema $ref ${JSON.stringify(schema.$ref)} is circular and never reaches a concrete schema`,
      );
      return;
    }
    const target = resolveSchemaRef(walk.root, schema.$ref);
    if (target === undefined) {
      out.push(`${path}: schema $ref ${JSON.stringify(schema.$ref)} cannot be resolved within the schema`);
    } else {
      walk.activeRefs.add(key);
      check(target, value, path, walk, out);
      walk.activeRefs.delete(key);
    }
  }

  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeof t === "string" && matchesJsonType(value, t))) {
      const expected = types.map(String).join(" or ");
      const detail = types.includes("integer") && typeof value === "number" ? ` (${value})` : "";
      out.push(`${path}: expected ${expected}, got ${jsonTypeOf(value)}${detail}`);
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => jsonEqual(option, value))) {
    const options = schema.enum.map((o) => JSON.stringify(o)).join(", ");
    out.push(`${path}: expected one of ${options}, got ${preview(value)}`);
  }
  if (schema.const !== undefined && !jsonEqual(schema.const, value)) {
    out.push(`${path}: expected ${JSON.stringify(schema.const)}, got ${preview(value)}`);
  }

  if (typeof value === "string") checkString(schema, value, path, out);
  else if (typeof value === "number") checkNumber(schema, value, path, out);
  else if (Array.isArray(value)) checkArray(schema, value, path, walk, out);
  else if (isJsonObject(value)) checkObject(schema, value, path, walk, out);

  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) check(sub, value, path, walk, out);
  if (Array.isArray(schema.anyOf)) checkAlternatives("anyOf", schema.anyOf, value, path, walk, out);
  if (Array.isArray(schema.oneOf)) checkAlternatives("oneOf", schema.oneOf, value, path, walk, out);
  if (schema.not !== undefined && sub(schema.not, value, path, walk).length === 0) {
    out.push(`${path}: must not match the schema in "not"`);
  }
  if (schema.if !== undefined) {
    const branch = sub(schema.if, value, path, walk).length === 0 ? schema.then : schema.else;
    if (branch !== undefined) check(branch, value, path, walk, out);
  }
}

/**
 * Assertion keywords this validator does not implement: a schema using one fails closed.
 * (Annotations such as `format` are not assertions and stay ignored.)
 */
export const UNCHECKED_KEYWORDS: readonly string[] = [
  "unevaluatedProperties",
  "unevaluatedItems",
  "$dynamicRef",
  "$recursiveRef",
  "contentSchema",
];

function sub(schema: JsonValue, value: JsonValue, path: string, walk: Walk): string[] {
  const issues: string[] = [];
  check(schema, value, path, walk, issues);
  return issues;
}

function checkAlternatives(
  keyword: "anyOf" | "oneOf",
  options: JsonValue[],
  value: JsonValue,
  path: string,
  walk: Walk,
  out: string[],
): void {
  const results = options.map((option) => sub(option, value, path, walk));
  const matched = results.flatMap((issues, i) => (issues.length === 0 ? [i + 1] : []));
  if (keyword === "oneOf" && matched.length > 1) {
    out.push(`${path}: matches alternatives ${matched.join(" and ")} of oneOf, but must match exactly one`);
    return;
  }
  if (matched.length > 0) return;
  const declared = options.map((o) => (isJsonObject(o) && typeof o.type === "string" ? o.type : undefined));
  if (declared.every((t) => t !== undefined)) {
    const applicable = options.filter((_, i) => matchesJsonType(value, declared[i] as string));
    if (applicable.length === 0) {
      out.push(`${path}: expected ${[...new Set(declared)].join(" or ")}, got ${jsonTypeOf(value)}`);
      return;
    }
  }
  const detail = results.map((issues, i) => `(${i + 1}) ${issues.join("; ")}`).join(" ");
  out.push(`${path}: does not match any ${keyword} alternative: ${detail}`);
}

function checkString(schema: JsonObject, value: string, path: string, out: string[]): void {
  const length =
    typeof schema.minLength === "number" || typeof schema.maxLength === "number" ? [...value].length : 0;
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    out.push(`${path}: expected at least ${schema.minLength} characters, got ${length}`);
  }
  if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    out.push(`${path}: expected at most ${schema.maxLength} characters, got ${length}`);
  }
  if (typeof schema.pattern === "string") {
    const regex = compile(schema.pattern);
    if (regex === null)
      out.push(`${path}: schema pattern ${JSON.stringify(schema.pattern)} is not a valid regex`);
    else if (!regex.test(value))
      out.push(`${path}: ${preview(value)} does not match pattern ${schema.pattern}`);
  }
}

function checkNumber(schema: JsonObject, value: number, path: string, out: string[]): void {
  const { minimum, maximum, exclusiveMinimum: exMin, exclusiveMaximum: exMax, multipleOf } = schema;
  if (typeof minimum === "number") {
    if (exMin === true ? value <= minimum : value < minimum) {
      out.push(`${path}: expected ${exMin === true ? ">" : ">="} ${minimum}, got ${value}`);
    }
  }
  if (typeof maximum === "number") {
    if (exMax === true ? value >= maximum : value > maximum) {
      out.push(`${path}: expected ${exMax === true ? "<" : "<="} ${maximum}, got ${value}`);
    }
  }
  if (typeof exMin === "number" && value <= exMin) out.push(`${path}: expected > ${exMin}, got ${value}`);
  if (typeof exMax === "number" && value >= exMax) out.push(`${path}: expected < ${exMax}, got ${value}`);
  if (typeof multipleOf === "number" && multipleOf > 0) {
    const quotient = value / multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
      out.push(`${path}: expected a multiple of ${multipleOf}, got ${value}`);
    }
  }
}

function checkArray(schema: JsonObject, value: JsonValue[], path: string, walk: Walk, out: string[]): void {
  if (typeof schema.minItems === "number" && value.length < schema.minItems) {
    out.push(`${path}: expected at least ${schema.minItems} items, got ${value.length}`);
  }
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
    out.push(`${path}: expected at most ${schema.maxItems} items, got ${value.length}`);
  }
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  value.forEach((item, i) => {
    const itemSchema = i < tuple.length ? tuple[i] : rest;
    if (itemSchema !== undefined) check(itemSchema, item, `${path}[${i}]`, walk, out);
  });
  if (schema.contains !== undefined) {
    const matches = value.filter(
      (item, i) => sub(schema.contains as JsonValue, item, `${path}[${i}]`, walk).length === 0,
    ).length;
    const min = typeof schema.minContains === "number" ? schema.minContains : 1;
    if (matches < min)
      out.push(`${path}: expected at least ${min} item(s) matching "contains", got ${matches}`);
    if (typeof schema.maxContains === "number" && matches > schema.maxContains) {
      out.push(`${path}: expected at most ${schema.maxContains} item(s) matching "contains", got ${matches}`);
    }
  }
  if (schema.uniqueItems === true) {
    for (let i = 1; i < value.length; i++) {
      const j = value.slice(0, i).findIndex((earlier) => jsonEqual(earlier, value[i] as JsonValue));
      if (j >= 0) {
        out.push(`${path}: items must be unique, but [${j}] and [${i}] are equal`);
        break;
      }
    }
  }
}

function checkObject(schema: JsonObject, value: JsonObject, path: string, walk: Walk, out: string[]): void {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  if (Array.isArray(schema.required)) {
    for (const name of schema.required) {
      if (typeof name === "string" && !Object.hasOwn(value, name)) {
        out.push(`${childPath(path, name)}: missing required property`);
      }
    }
  }
  const keys = Object.keys(value);
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) {
    out.push(`${path}: expected at least ${schema.minProperties} properties, got ${keys.length}`);
  }
  if (typeof schema.maxProperties === "number" && keys.length > schema.maxProperties) {
    out.push(`${path}: expected at most ${schema.maxProperties} properties, got ${keys.length}`);
  }
  checkDependencies(schema, value, path, walk, out);
  if (schema.propertyNames !== undefined) {
    for (const key of keys) {
      if (sub(schema.propertyNames, key, path, walk).length > 0) {
        out.push(
          `${childPath(path, key)}: property name ${JSON.stringify(key)} does not match "propertyNames"`,
        );
      }
    }
  }
  const patterns = isJsonObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
  for (const key of keys) {
    const child = value[key] as JsonValue;
    const at = childPath(path, key);
    let known = false;
    if (Object.hasOwn(properties, key)) {
      known = true;
      check(properties[key] as JsonValue, child, at, walk, out);
    }
    for (const [pattern, patternSchema] of patterns) {
      if (compile(pattern)?.test(key)) {
        known = true;
        check(patternSchema, child, at, walk, out);
      }
    }
    if (known || schema.additionalProperties === undefined) continue;
    if (schema.additionalProperties === false) {
      const allowed = Object.keys(properties);
      out.push(`${at}: unexpected property (allowed: ${allowed.length > 0 ? allowed.join(", ") : "none"})`);
    } else {
      check(schema.additionalProperties, child, at, walk, out);
    }
  }
}

/** `dependentRequired`, `dependentSchemas` and draft-07 `dependencies` (both forms). */
function checkDependencies(
  schema: JsonObject,
  value: JsonObject,
  path: string,
  walk: Walk,
  out: string[],
): void {
  const required: Array<[string, JsonValue]> = [];
  const schemas: Array<[string, JsonValue]> = [];
  if (isJsonObject(schema.dependentRequired)) required.push(...Object.entries(schema.dependentRequired));
  if (isJsonObject(schema.dependentSchemas)) schemas.push(...Object.entries(schema.dependentSchemas));
  if (isJsonObject(schema.dependencies)) {
    for (const entry of Object.entries(schema.dependencies))
      (Array.isArray(entry[1]) ? required : schemas).push(entry);
  }
  for (const [name, needs] of required) {
    if (!Object.hasOwn(value, name) || !Array.isArray(needs)) continue;
    for (const need of needs) {
      if (typeof need === "string" && !Object.hasOwn(value, need)) {
        out.push(
          `${childPath(path, need)}: missing property required when ${JSON.stringify(name)} is present`,
        );
      }
    }
  }
  for (const [name, dependent] of schemas) {
    if (Object.hasOwn(value, name)) check(dependent, value, path, walk, out);
  }
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function compile(pattern: string): RegExp | null {
  let regex = patternCache.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern, "u");
    } catch {
      regex = null;
    }
    if (patternCache.size > 500) patternCache.clear();
    patternCache.set(pattern, regex);
  }
  return regex;
}
