import type { JsonObject } from "../json/json-value.js";

/**
 * A tool call requested by the model.
 *
 * `id` is mandatory: it is the correlation key between the assistant message that asked for
 * the call and the tool message that answers it. When the model's arguments could not be
 * parsed, `arguments` is `{}` and `invalid` keeps the raw text and the parse error so the loop
 * can answer with an error result instead of guessing.
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: JsonObject;
  invalid?: InvalidToolArguments;
}

/** Why a tool call's arguments are unusable, with the raw text the model produced. */
export interface InvalidToolArguments {
  raw: string;
  error: string;
}
