import { validationError } from "../../errors/tinyagents-error.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import { declaredToolChoice } from "../../model/declared-tool-choice.js";
import type { ModelRequest, ResponseFormat } from "../../model/model-request.js";
import type { ToolChoice } from "../../tool/tool-choice.js";
import { isReasoningFamily } from "../openai/quirks.js";
import { toStrictSchema } from "../openai/strict-schema.js";
import { mapInput } from "./map-input.js";

/** Target facts for {@link toResponsesRequest}. */
export interface ResponsesRequestContext {
  provider: string;
  modelId: string;
  stream: boolean;
  /** `store` to send (`undefined`: the server default, which stores). */
  store?: boolean | undefined;
  /** `include` values to send (for example `reasoning.encrypted_content`). */
  include?: readonly string[] | undefined;
}

/** The `include` value that asks for reasoning items' `encrypted_content`. */
export const INCLUDE_ENCRYPTED_REASONING = "reasoning.encrypted_content";

/**
 * Build the `POST /responses` body. `providerOptions` are copied first; request fields win:
 * - `model`, `input` (see `mapInput`), `store` and `include` (adapter options);
 * - `tools` as flat function tools `{type:"function", name, description, parameters, strict}`:
 *   the Responses API makes tools strict unless told otherwise, so `strict: false` is sent for
 *   tools not marked strict, and strict ones get the strict schema projection;
 * - `tool_choice` (`auto|none|required|{type:"function", name}`), `parallel_tool_calls`;
 * - `text.format` from `responseFormat` (`json_schema` with name, schema, strict — default
 *   true — and description; `json_object`; nothing for `text`);
 * - `max_output_tokens`, `temperature` / `top_p` (not for reasoning families, which reject them);
 * - `reasoning: {effort, summary}` from `request.reasoning`;
 * - `prompt_cache_key` and `prompt_cache_retention: "24h"` (for `retention: "long"`) when the
 *   prompt cache is enabled;
 * - `stream: true` for streams.
 * `stop` and `seed` have no Responses API field and are not sent.
 * Throws a `validation` error for a tool choice naming an undeclared tool, or one needing tools
 * when none are declared.
 */
export function toResponsesRequest(request: ModelRequest, context: ResponsesRequestContext): JsonObject {
  const store = context.store ?? true;
  const body: JsonObject = { ...(request.providerOptions ?? {}) };
  body.model = context.modelId;
  body.input = mapInput(request.messages, { provider: context.provider, store });
  if (context.store !== undefined) body.store = context.store;
  if (context.include !== undefined && context.include.length > 0) {
    const given = Array.isArray(body.include) ? body.include.filter((v) => typeof v === "string") : [];
    body.include = [...new Set([...given, ...context.include])];
  }
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((tool) => {
      const strict = tool.strict === true;
      return {
        type: "function",
        name: tool.name,
        description: tool.description,
        parameters: strict ? toStrictSchema(tool.parameters) : tool.parameters,
        strict,
      };
    });
    if (request.toolChoice !== undefined) body.tool_choice = mapToolChoice(request.toolChoice, request);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  } else if (
    request.toolChoice !== undefined &&
    request.toolChoice !== "auto" &&
    request.toolChoice !== "none"
  ) {
    throw validationError(
      `toolChoice ${JSON.stringify(request.toolChoice)} needs tools, but the request declares none; add the tools or drop toolChoice`,
      { field: "toolChoice" },
    );
  }
  const format = mapFormat(request.responseFormat);
  if (format !== undefined) {
    const text = body.text;
    body.text = { ...(isObject(text) ? text : {}), format };
  }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  const reasoningModel = isReasoningFamily(context.modelId);
  if (reasoningModel) {
    delete body.temperature;
    delete body.top_p;
  } else {
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
  }
  if (request.reasoning !== undefined) {
    const given = body.reasoning;
    const reasoning: JsonObject = { ...(isObject(given) ? given : {}) };
    if (request.reasoning.effort !== undefined) reasoning.effort = request.reasoning.effort;
    if (request.reasoning.summary !== undefined) reasoning.summary = request.reasoning.summary;
    if (Object.keys(reasoning).length > 0) body.reasoning = reasoning;
  }
  if (request.promptCache?.enabled === true) {
    if (request.promptCache.key !== undefined) body.prompt_cache_key = request.promptCache.key;
    if (request.promptCache.retention === "long") body.prompt_cache_retention = "24h";
  }
  if (context.stream) body.stream = true;
  else delete body.stream;
  return body;
}

function mapToolChoice(choice: ToolChoice, request: ModelRequest): JsonValue {
  if (typeof choice === "string") return choice;
  return { type: "function", name: declaredToolChoice(choice, request) };
}

function mapFormat(format: ResponseFormat | undefined): JsonObject | undefined {
  if (format === undefined || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json_object" };
  const strict = format.strict ?? true;
  const spec: JsonObject = { type: "json_schema", name: sanitizeName(format.name) };
  if (format.description !== undefined) spec.description = format.description;
  spec.schema = strict ? toStrictSchema(format.schema) : format.schema;
  spec.strict = strict;
  return spec;
}

/** `format.name` must match `[a-zA-Z0-9_-]{1,64}`. */
function sanitizeName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return clean === "" ? "response" : clean;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
