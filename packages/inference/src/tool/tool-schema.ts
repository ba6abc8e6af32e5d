import type { JsonObject } from "../json/json-value.js";

/** The model-facing declaration of a tool: name, description and a JSON Schema for its arguments. */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema (an object schema) for the arguments. */
  parameters: JsonObject;
  /** Ask the provider to enforce the schema strictly where it can. */
  strict?: boolean;
}
