/**
 * Structured output: response formats from any Standard Schema (zod 4, ...) or raw JSON Schema,
 * enforced natively by the provider or through a synthetic final-answer tool, with a lenient
 * JSON repair ladder, bounded re-asks and typed results (`harness.withResponseFormat(schema)`).
 */
export {
  extractStructured,
  type StructuredOutcome,
  structuredOutputError,
  validated,
} from "./extract-structured.js";
export { FINAL_ANSWER_RECORDED, finalAnswerTool } from "./final-answer-tool.js";
export { type JsonRepair, type LenientJson, parseLenientJson } from "./json-repair.js";
export { nameCollision, type PreparedStructured, prepareStructured } from "./prepared-structured.js";
export { parseStructured, structuredResponse } from "./structured-accessors.js";
export {
  isObjectSchema,
  type StructuredOutputOptions,
  type StructuredSpec,
  type StructuredStrategy,
  type StructuredValidation,
  type StructuredValueOf,
  structuredSpec,
} from "./structured-spec.js";
