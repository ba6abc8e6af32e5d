import {
  isJsonObject,
  type JsonValue,
  type ModelResponse,
  type ResponseFormat,
  TinyAgentsError,
  text,
} from "@tinyagents/inference";
import { validateAgainstSchema } from "../tool/json-schema-validator.js";

/**
 * Parse and validate the final answer against the requested response format. Returns
 * `undefined` for plain text formats. Tolerates a markdown code fence around the JSON.
 * Throws `structured_output` naming what did not match.
 */
export function extractStructured(
  format: ResponseFormat | undefined,
  response: ModelResponse,
): JsonValue | undefined {
  if (format === undefined || format.type === "text") return undefined;
  const raw = text(response.message).trim();
  const unfenced = raw.replace(/^```(?:json)?\s*/i, "").replace(/\s*```$/, "");
  let value: JsonValue;
  try {
    value = JSON.parse(unfenced) as JsonValue;
  } catch (error) {
    throw new TinyAgentsError(
      "structured_output",
      `the model's final answer is not valid JSON (${(error as Error).message}); answer started with: ${JSON.stringify(raw.slice(0, 80))}`,
      { details: { format: format.type } },
    );
  }
  if (format.type === "json_object" && !isJsonObject(value)) {
    throw new TinyAgentsError("structured_output", "the model's final answer is JSON but not an object", {
      details: { format: format.type },
    });
  }
  if (format.type === "json_schema") {
    const issues = validateAgainstSchema(format.schema, value);
    if (issues.length > 0) {
      throw new TinyAgentsError(
        "structured_output",
        `the model's final answer does not match schema "${format.name}": ${issues.join("; ")}`,
        { details: { format: format.type, schema: format.name, issues } },
      );
    }
  }
  return value;
}
