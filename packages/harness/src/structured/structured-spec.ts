import type { StandardSchemaV1 } from "@standard-schema/spec";
import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  type ResponseFormat,
  validationError,
} from "@tinyagents/inference";
import { isStandardSchema } from "../tool/define-tool.js";
import { validateAgainstSchema } from "../tool/json-schema-validator.js";
import { formatStandardIssues } from "../tool/standard-issues.js";
import { standardJsonSchema } from "../tool/standard-json-schema.js";
import { isValidToolName } from "../tool/tool-name.js";

/**
 * How the model is asked for structured output:
 * - `native`: the provider enforces the JSON Schema (`responseFormat`), the answer is text;
 * - `tool`: a synthetic final-answer tool named after the schema — the model "calls" it with the
 *   answer as arguments (works with any tool-calling model);
 * - `auto`: `native` when the run's model profile says `nativeStructuredOutput` (or there is no
 *   profile), else `tool` when it supports tools, else `native`.
 */
export type StructuredStrategy = "native" | "tool" | "auto";

/** Options of {@link structuredSpec} and `harness.withResponseFormat`. */
export interface StructuredOutputOptions {
  /**
   * Schema name (default `"final_answer"`): the provider's `json_schema` name and, with the tool
   * strategy, the final-answer tool's name — so `auto` and `tool` need ASCII snake_case, and it
   * must not collide with a registered tool.
   */
  name?: string;
  /** What the answer is; shown to the model. */
  description?: string;
  /** Default `"auto"`. */
  strategy?: StructuredStrategy;
  /**
   * How many times the model is asked again, with the validation issues, when its answer does not
   * parse or validate (default 0: fail at once with `structured_output`).
   */
  maxReasks?: number;
  /** Ask the provider to enforce the schema strictly (default true for native). */
  strict?: boolean;
  /** With a Standard Schema: the JSON Schema to show the model instead of the derived one. */
  jsonSchema?: JsonObject;
}

/** The outcome of validating an answer. */
export type StructuredValidation<T> = { ok: true; value: T } | { ok: false; issues: string[] };

/** A response format plus everything needed to enforce it. Build with {@link structuredSpec}. */
export interface StructuredSpec<T = JsonValue> {
  readonly name: string;
  /** What providers get in `responseFormat` (native strategy): `json_schema`, or `json_object`. */
  readonly format: Extract<ResponseFormat, { type: "json_schema" } | { type: "json_object" }>;
  readonly strategy: StructuredStrategy;
  readonly maxReasks: number;
  /** Check a parsed answer; `value` is the schema's output (transforms applied). */
  validate(value: JsonValue): StructuredValidation<T> | Promise<StructuredValidation<T>>;
}

/** The typed value a schema produces: a Standard Schema's output, or JSON for a JSON Schema. */
export type StructuredValueOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : JsonValue;

/**
 * Turn a schema into a {@link StructuredSpec}:
 * - a Standard Schema (zod 4, valibot, arktype, ...): the JSON Schema shown to the model is
 *   derived once (`~standard.jsonSchema`, like `tool()`), answers are validated by the schema and
 *   typed by its output;
 * - a raw JSON Schema object: validated with the built-in validator, typed `JsonValue`;
 * - a `ResponseFormat` (`json_schema` or `json_object`), as found in `RunPolicy.responseFormat`.
 * Throws `validation` for a `text` format, a bad name, a schema that cannot be converted, or a
 * tool/auto strategy with a schema whose top level is not an object (tool arguments are objects).
 */
export function structuredSpec<S extends StandardSchemaV1>(
  schema: S,
  options?: StructuredOutputOptions,
): StructuredSpec<StandardSchemaV1.InferOutput<S>>;
export function structuredSpec(
  schema: JsonObject | ResponseFormat,
  options?: StructuredOutputOptions,
): StructuredSpec<JsonValue>;
export function structuredSpec(
  schema: StandardSchemaV1 | JsonObject | ResponseFormat,
  options: StructuredOutputOptions = {},
): StructuredSpec<unknown> {
  const strategy = options.strategy ?? "auto";
  if (strategy !== "native" && strategy !== "tool" && strategy !== "auto") {
    throw validationError(
      `structured output: strategy must be "native", "tool" or "auto", got ${String(strategy)}`,
      {
        field: "strategy",
      },
    );
  }
  const maxReasks = options.maxReasks ?? 0;
  if (!Number.isInteger(maxReasks) || maxReasks < 0) {
    throw validationError(`structured output: maxReasks must be an integer >= 0, got ${String(maxReasks)}`, {
      field: "maxReasks",
    });
  }
  if (isResponseFormat(schema)) {
    if (schema.type === "text") {
      throw validationError('structured output needs a JSON format; { type: "text" } asks for plain text', {
        field: "responseFormat",
      });
    }
    if (schema.type === "json_object") {
      return build(
        "json_object",
        options.name ?? "json_object",
        strategy,
        maxReasks,
        { type: "json_object" },
        (v) =>
          isJsonObject(v) ? { ok: true, value: v } : { ok: false, issues: ["$: expected a JSON object"] },
      );
    }
    const jsonSchema = schema.schema;
    const format = {
      ...schema,
      ...(options.description === undefined ? {} : { description: options.description }),
    };
    return build("json_schema", options.name ?? schema.name, strategy, maxReasks, format, (v) =>
      checkRaw(jsonSchema, v),
    );
  }
  const name = options.name ?? "final_answer";
  if (isStandardSchema(schema)) {
    const derived =
      options.jsonSchema ??
      standardJsonSchema(schema, {
        label: `response format "${name}"`,
        field: "schema",
        details: { schema: name },
      });
    const plain = toPlain(derived, name);
    return build("json_schema", name, strategy, maxReasks, jsonSchemaFormat(name, plain, options), (v) =>
      checkStandard(schema, v),
    );
  }
  if (!isJsonObject(schema)) {
    throw validationError(
      "structured output: pass a Standard Schema (zod, ...), a JSON Schema object or a ResponseFormat",
      {
        field: "schema",
      },
    );
  }
  const plain = toPlain(schema, name);
  return build("json_schema", name, strategy, maxReasks, jsonSchemaFormat(name, plain, options), (v) =>
    checkRaw(plain, v),
  );
}

/** The top level of a JSON Schema describes an object (required for the tool strategy). */
export function isObjectSchema(schema: JsonObject): boolean {
  const type = schema.type;
  return (
    type === "object" ||
    (Array.isArray(type) && type.includes("object")) ||
    (type === undefined && isJsonObject(schema.properties))
  );
}

function build(
  kind: "json_schema" | "json_object",
  name: string,
  strategy: StructuredStrategy,
  maxReasks: number,
  format: StructuredSpec["format"],
  validate: StructuredSpec<unknown>["validate"],
): StructuredSpec<unknown> {
  const toolCapable =
    kind === "json_schema" && format.type === "json_schema" && isObjectSchema(format.schema);
  if (strategy === "tool" && !toolCapable) {
    throw validationError(
      `structured output "${name}": the tool strategy needs a JSON Schema whose top level is an object ` +
        "(tool arguments are objects); wrap the value in an object or use the native strategy",
      { field: "strategy", schema: name },
    );
  }
  if (strategy !== "native" && toolCapable && !isValidToolName(name)) {
    throw validationError(
      `structured output: name "${name}" must be ASCII snake_case (it doubles as the final-answer tool's name); ` +
        'rename it, e.g. "city_report", or use strategy "native"',
      { field: "name", schema: name },
    );
  }
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw validationError(`structured output: name "${name}" must be 1-64 letters, digits, "_" or "-"`, {
      field: "name",
      schema: name,
    });
  }
  const named = format.type === "json_schema" ? { ...format, name } : format;
  return { name, format: named, strategy: toolCapable ? strategy : "native", maxReasks, validate };
}

function jsonSchemaFormat(
  name: string,
  schema: JsonObject,
  options: StructuredOutputOptions,
): StructuredSpec["format"] {
  return {
    type: "json_schema",
    name,
    schema,
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
  };
}

function isResponseFormat(value: unknown): value is ResponseFormat {
  if (!isJsonObject(value)) return false;
  if (value.type === "text" || value.type === "json_object") return Object.keys(value).length === 1;
  return value.type === "json_schema" && typeof value.name === "string" && isJsonObject(value.schema);
}

function toPlain(schema: unknown, name: string): JsonObject {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(schema) ?? "null");
  } catch (error) {
    throw validationError(
      `response format "${name}": the schema is not JSON data (${(error as Error).message})`,
      {
        field: "schema",
      },
    );
  }
  if (!isJsonObject(copy)) {
    throw validationError(`response format "${name}": the JSON Schema must be an object`, {
      field: "schema",
    });
  }
  delete copy.$schema;
  return copy;
}

function checkRaw(schema: JsonObject, value: JsonValue): StructuredValidation<JsonValue> {
  const issues = validateAgainstSchema(schema, value);
  return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
}

function checkStandard(
  schema: StandardSchemaV1,
  value: JsonValue,
): StructuredValidation<unknown> | Promise<StructuredValidation<unknown>> {
  const toOutcome = (result: StandardSchemaV1.Result<unknown>): StructuredValidation<unknown> =>
    result.issues === undefined
      ? { ok: true, value: result.value }
      : { ok: false, issues: formatStandardIssues(result.issues) };
  const threw = (error: unknown): StructuredValidation<unknown> => ({
    ok: false,
    issues: [`$: the schema's validator threw: ${error instanceof Error ? error.message : String(error)}`],
  });
  try {
    const result = schema["~standard"].validate(value);
    return result instanceof Promise ? result.then(toOutcome, threw) : toOutcome(result);
  } catch (error) {
    return threw(error);
  }
}
