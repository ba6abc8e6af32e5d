import type { JsonObject } from "../../json/json-value.js";

/**
 * The subset of Ollama's native `POST /api/chat` request body this adapter writes. Type aliases
 * (not interfaces) so every shape is assignable to `JsonValue`.
 */

/** A tool call echoed back in an assistant message. `arguments` is an object, never a string. */
export type OllamaToolCall = { id?: string; function: { name: string; arguments: JsonObject } };

/** One chat message. `images` holds bare base64 (no `data:` prefix). */
export type OllamaMessage = {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  thinking?: string;
  images?: string[];
  tool_calls?: OllamaToolCall[];
  tool_name?: string;
  tool_call_id?: string;
};

/** An OpenAI-style function tool declaration. */
export type OllamaTool = {
  type: "function";
  function: { name: string; description?: string; parameters: JsonObject };
};

/** Modelfile parameters (`options`); only the ones this adapter maps are named. */
// An intersection, not an index signature beside optional keys: without
// `exactOptionalPropertyTypes` (a consumer's plain `strict`) those keys are `number | undefined`,
// which does not fit a `JsonValue` index signature (TS2411 in the published .d.ts).
export type OllamaOptions = JsonObject & {
  temperature?: number;
  top_p?: number;
  seed?: number;
  num_predict?: number;
  stop?: string[];
};

/** The request body. */
export type OllamaChatRequest = {
  model: string;
  messages: OllamaMessage[];
  stream: boolean;
  tools?: OllamaTool[];
  format?: "json" | JsonObject;
  options?: OllamaOptions;
  keep_alive?: string | number;
  think?: boolean | "low" | "medium" | "high";
};
