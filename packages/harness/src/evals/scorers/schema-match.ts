import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { JsonObject, JsonValue } from "@tinyagents/inference";
import { parseLenientJson } from "../../structured/json-repair.js";
import { structuredSpec } from "../../structured/structured-spec.js";
import type { Scorer } from "../scorer.js";
import { makeScorer, type ScorerOptions } from "./custom.js";

/** Options of {@link schemaMatch}. */
export interface SchemaMatchOptions extends ScorerOptions {
  /**
   * What is checked: `structured` (default: `run.structured`, else the final text parsed as JSON)
   * or `output` (always the final text parsed as JSON).
   */
  of?: "structured" | "output";
}

/**
 * 1 when the structured value (or the final text parsed as JSON) matches `schema` — a Standard
 * Schema (zod 4, valibot, ...) or a JSON Schema — else 0 with the validation issues as the
 * reason. Name `schema`, threshold 1.
 */
export function schemaMatch(schema: StandardSchemaV1 | JsonObject, options: SchemaMatchOptions = {}): Scorer {
  const spec = structuredSpec(schema as JsonObject, { strategy: "native" });
  const of = options.of ?? "structured";
  return makeScorer("schema", 1, options, async (context) => {
    let value: JsonValue | undefined = of === "structured" ? context.structured : undefined;
    if (value === undefined) {
      const parsed = parseLenientJson(context.output);
      if (parsed === undefined)
        return { score: 0, reason: "the output is not JSON and there is no structured value" };
      value = parsed.value;
    }
    const result = await spec.validate(value);
    return result.ok
      ? { score: 1, reason: "matches the schema" }
      : { score: 0, reason: `does not match the schema: ${result.issues.slice(0, 3).join("; ")}` };
  });
}
