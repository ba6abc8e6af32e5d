import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import { type JsonObject, TinyAgentsError, validationError } from "@tinyagents/inference";

/** JSON Schema target requested from Standard JSON Schema libraries. */
export const JSON_SCHEMA_TARGET = "draft-2020-12";

/** Who is asking, for error messages: `label` starts them, `details` are added to them. */
export interface SchemaOwner {
  /** For example `tool "get_weather"` or `response format "report"`. */
  label: string;
  /** The option the schema came from (`inputSchema`, `schema`). */
  field: string;
  details?: JsonObject;
}

/**
 * The JSON Schema of the INPUT of a Standard Schema (what a valid value looks like before
 * transforms), from `~standard.jsonSchema.input({ target: "draft-2020-12" })`. Throws a
 * `validation` error saying what to do when the library does not implement Standard JSON Schema
 * or the schema has no JSON Schema equivalent.
 */
export function standardJsonSchema(schema: StandardSchemaV1, owner: SchemaOwner): unknown {
  const props: StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props> = schema["~standard"];
  const converter = props.jsonSchema;
  const details = { field: owner.field, ...owner.details, vendor: props.vendor };
  if (converter === undefined || typeof converter.input !== "function") {
    throw validationError(
      `${owner.label}: cannot derive a JSON Schema from the ${props.vendor} schema because it does not ` +
        `implement Standard JSON Schema (~standard.jsonSchema); pass \`jsonSchema\` explicitly ` +
        `(or upgrade the library, e.g. zod >= 4.2)`,
      details,
    );
  }
  try {
    return converter.input({ target: JSON_SCHEMA_TARGET });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TinyAgentsError(
      "validation",
      `${owner.label}: the ${props.vendor} schema could not be converted to JSON Schema (${reason}); ` +
        `use schema features that have a JSON Schema equivalent, or pass \`jsonSchema\` explicitly`,
      { cause: error, details },
    );
  }
}
