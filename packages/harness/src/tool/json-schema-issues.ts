import { isJsonObject, type JsonValue } from "@tinyagents/inference";
import { resolveSchemaRef } from "./json-schema-ref.js";

/**
 * One unit of `@cfworker/json-schema`'s output (its `OutputUnit`), declared here: the library is
 * inlined into the build, not a dependency, so published declarations must not import it.
 */
export interface OutputUnit {
  keyword: string;
  keywordLocation: string;
  instanceLocation: string;
  error: string;
}

/**
 * Turn `@cfworker/json-schema` output units into the issues a model can act on: one line per
 * violation, prefixed by the JSON path of the offending value (`$.city: expected string, got
 * number`, `$.a: missing required property`). Wrapper units ("a subschema had errors") are
 * dropped in favour of the violations under them; `anyOf`/`oneOf` failures list what each
 * alternative rejected.
 */
export function formatSchemaIssues(
  units: readonly OutputUnit[],
  value: JsonValue,
  root: string,
  schema?: JsonValue,
): string[] {
  const list = units.filter((unit) => unit.error !== "A subschema had errors." && !underContains(unit));
  const out: string[] = [];
  for (let i = 0; i < list.length; i++) {
    const unit = list[i] as OutputUnit;
    const next = list[i + 1];
    const where = locate(unit.instanceLocation, value, root);
    if (unit.keyword === "anyOf" || unit.keyword === "oneOf") {
      let end = i + 1;
      while (end < list.length && isInside(list[end] as OutputUnit, unit)) end++;
      out.push(alternatives(unit, list.slice(i + 1, end), value, root, where.path, schema));
      i = end - 1;
    } else if (unit.keyword === "propertyNames") {
      const name = /^Property name "(.*)" does not match schema\.$/.exec(unit.error)?.[1] ?? "";
      out.push(
        `${childPath(where.path, name)}: property name ${JSON.stringify(name)} does not match "propertyNames"`,
      );
      while (list[i + 1] !== undefined && isInside(list[i + 1] as OutputUnit, unit)) i++;
    } else if (
      (unit.keyword === "additionalProperties" || unit.keyword === "unevaluatedProperties") &&
      next?.error === "False boolean schema."
    ) {
      const declared = keywordValue(schema, unit.keywordLocation.replace(/\/\w+$/, "/properties"));
      const allowed = isJsonObject(declared) ? Object.keys(declared) : [];
      const path = locate(next.instanceLocation, value, root).path;
      out.push(`${path}: unexpected property (allowed: ${allowed.length > 0 ? allowed.join(", ") : "none"})`);
      i++;
    } else if (WRAPPERS.has(unit.keyword) && next !== undefined && isInside(next, unit)) {
      // The violations inside say what is wrong; the wrapper would only repeat "does not match".
    } else {
      out.push(describe(unit, where, schema));
    }
  }
  return out;
}

/** Keywords whose failure is only the sum of failures reported under them. */
const WRAPPERS = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "allOf",
  "if",
  "then",
  "else",
  "dependentSchemas",
  "dependencies",
  "$ref",
  "$recursiveRef",
]);

/** Items that fail a `contains` subschema are reported by the library but are no violation. */
function underContains(unit: OutputUnit): boolean {
  const segments = unit.keywordLocation.split("/");
  return segments.some(
    (segment, i) =>
      segment === "contains" && i < segments.length - 1 && !SCHEMA_MAPS.has(segments[i - 1] ?? ""),
  );
}

/** Keywords whose members are named by the user (a property called "contains" is not the keyword). */
const SCHEMA_MAPS = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
  "dependencies",
]);

/** Whether `unit` was reported under `parent` (boolean `false` subschemas carry no keyword path). */
function isInside(unit: OutputUnit, parent: OutputUnit): boolean {
  if (unit.error === "False boolean schema.") return true;
  const scope =
    parent.keyword === "if" ? parent.keywordLocation.slice(0, -"/if".length) : parent.keywordLocation;
  return unit.keywordLocation.startsWith(`${scope}/`);
}

function alternatives(
  unit: OutputUnit,
  inner: OutputUnit[],
  value: JsonValue,
  root: string,
  path: string,
  schema: JsonValue | undefined,
): string {
  const matches = /\((\d+) matches\)/.exec(unit.error)?.[1];
  if (matches !== undefined && Number(matches) > 1) {
    return `${path}: matches ${matches} alternatives of oneOf, but must match exactly one`;
  }
  const prefix = `${unit.keywordLocation}/`;
  const byOption = new Map<string, OutputUnit[]>();
  for (const item of inner) {
    const option = item.keywordLocation.startsWith(prefix)
      ? (item.keywordLocation.slice(prefix.length).split("/")[0] ?? "?")
      : "?";
    byOption.set(option, [...(byOption.get(option) ?? []), item]);
  }
  const issues = [...byOption].map(([option, items]) => ({
    option,
    lines: formatSchemaIssues(items, value, root, schema),
  }));
  // Every alternative only wants another type: say so in one line.
  const typeOnly = issues.map(({ lines }) =>
    lines.length === 1 ? /^(.*): expected (\w+), got (\w+)$/.exec(lines[0] as string) : null,
  );
  if (typeOnly.length > 0 && typeOnly.every((m) => m !== null && m[1] === path)) {
    const wanted = [...new Set(typeOnly.map((m) => m?.[2]))].join(" or ");
    return `${path}: expected ${wanted}, got ${typeOnly[0]?.[3]}`;
  }
  const detail = issues
    .map(({ option, lines }) => {
      const label = /^\d+$/.test(option) ? `(${Number(option) + 1})` : "";
      return `${label} ${lines.join("; ")}`.trim();
    })
    .join(" ");
  return `${path}: does not match any ${unit.keyword} alternative${detail === "" ? "" : `: ${detail}`}`;
}

interface Located {
  path: string;
  value: JsonValue | undefined;
}

/** The readable path (`$.a[0]["first name"]`) and the value at a JSON pointer fragment (`#/a/0`). */
function locate(pointer: string, value: JsonValue, root: string): Located {
  let path = root;
  let node: JsonValue | undefined = value;
  for (const raw of pointer.replace(/^#\/?/, "").split("/")) {
    if (raw === "") continue;
    const key = decodeSegment(raw);
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      path += `[${key}]`;
      node = node[Number(key)];
    } else {
      path = childPath(path, key);
      node = isJsonObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
    }
  }
  return { path, value: node };
}

function decodeSegment(raw: string): string {
  let text = raw.replace(/%23/g, "#");
  try {
    text = decodeURI(text);
  } catch {
    // keep the encoded form
  }
  return text.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The violation in words, rephrasing the library's most common messages around the value. */
function describe(unit: OutputUnit, where: Located, schema: JsonValue | undefined): string {
  const required = /^Instance does not have required property "(.*)"\.$/.exec(unit.error);
  if (required !== null) return `${childPath(where.path, required[1] ?? "")}: missing required property`;
  const dependent = /^Instance has "(.*)" but does not have "(.*)"\.$/.exec(unit.error);
  if (dependent !== null) {
    return `${childPath(where.path, dependent[2] ?? "")}: missing property required when ${JSON.stringify(dependent[1])} is present`;
  }
  return `${where.path}: ${violation(unit, where, schema)}`;
}

function violation(unit: OutputUnit, where: Located, schema: JsonValue | undefined): string {
  const got = where.value === undefined ? "" : preview(where.value);
  const type = /^Instance type "(\w+)" is invalid\. Expected (.*)\.$/.exec(unit.error);
  if (type !== null) {
    const expected = (type[2] ?? "").replace(/"/g, "").split(", ").join(" or ");
    const detail = expected.includes("integer") && typeof where.value === "number" ? ` (${got})` : "";
    return `expected ${expected}, got ${type[1]}${detail}`;
  }
  const enumeration = /^Instance does not match any of (.*)\.$/.exec(unit.error);
  if (enumeration !== null) {
    const options = JSON.parse(enumeration[1] ?? "[]") as JsonValue[];
    return `expected one of ${options.map((o) => JSON.stringify(o)).join(", ")}, got ${got}`;
  }
  const count = /^(?:Array has too (few|many) items|String is too (short|long)) \((\d+) [<>] (\d+)\)\.$/.exec(
    unit.error,
  );
  if (count !== null) {
    const bound = count[1] === "few" || count[2] === "short" ? "at least" : "at most";
    return `expected ${bound} ${count[4]} ${count[1] === undefined ? "characters" : "items"}, got ${count[3]}`;
  }
  const bound = /^(.+) is (less|greater) than (or equal to )?\s*(.+)\.$/.exec(unit.error);
  if (bound !== null) {
    const strict = bound[3] !== undefined || unit.keyword.startsWith("exclusive");
    const op = bound[2] === "less" ? (strict ? ">" : ">=") : strict ? "<" : "<=";
    return `expected ${op} ${bound[4]}, got ${bound[1]}`;
  }
  const duplicate = /^Duplicate items at indexes (\d+) and (\d+)\.$/.exec(unit.error);
  if (duplicate !== null)
    return `items must be unique, but [${duplicate[1]}] and [${duplicate[2]}] are equal`;
  const multiple = /^(.+) is not a multiple of (.+)\.$/.exec(unit.error);
  if (multiple !== null) return `expected a multiple of ${multiple[2]}, got ${multiple[1]}`;
  const constant = /^Instance does not match (.*)\.$/.exec(unit.error);
  if (constant !== null && unit.keyword === "const") return `expected ${constant[1]}, got ${got}`;
  if (unit.error === "False boolean schema.") return "no value is allowed here";
  if (unit.keyword === "not") return 'must not match the schema in "not"';
  if (unit.keyword === "pattern") {
    const pattern = keywordValue(schema, unit.keywordLocation);
    return `${got} does not match pattern ${typeof pattern === "string" ? pattern : "of the schema"}`;
  }
  if (unit.keyword === "format") return `${got} is not a valid ${/"(.*)"/.exec(unit.error)?.[1] ?? "value"}`;
  return unit.error;
}

/** The schema value at a keyword location such as `#/properties/a/$ref/pattern` (local refs only). */
function keywordValue(schema: JsonValue | undefined, location: string): JsonValue | undefined {
  let node = schema;
  for (const raw of location.replace(/^#\/?/, "").split("/")) {
    if (raw === "") continue;
    const key = decodeSegment(raw);
    if (key === "$ref" && isJsonObject(node) && typeof node.$ref === "string") {
      node = resolveSchemaRef(schema as JsonValue, node.$ref);
    } else if (isJsonObject(node)) node = node[key];
    else if (Array.isArray(node)) node = node[Number(key)];
    else return undefined;
  }
  return node;
}

function preview(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
