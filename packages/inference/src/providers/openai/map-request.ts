import { validationError } from "../../errors/tinyagents-error.js";
import type { JsonObject, JsonValue } from "../../json/json-value.js";
import { declaredToolChoice } from "../../model/declared-tool-choice.js";
import type { ModelRequest, ResponseFormat } from "../../model/model-request.js";
import type { ToolChoice } from "../../tool/tool-choice.js";
import { mapMessages } from "./map-messages.js";
import { isCurrentOpenAiFamily, isReasoningFamily, type OpenAiQuirks } from "./quirks.js";
import { toStrictSchema } from "./strict-schema.js";

/** Target facts for {@link mapRequest}. */
export interface RequestMappingContext {
  provider: string;
  modelId: string;
  quirks: OpenAiQuirks;
  stream: boolean;
}

/**
 * Build the Chat Completions body for a request. `providerOptions` are copied first, then every
 * field the request sets overwrites them (request values win):
 * `model`, `messages` (see `mapMessages`), `tools` (`{type:"function", function:{name,
 * description, parameters, strict?}}`; strict tools get the strict projection when the server
 * supports it), `tool_choice` (`auto|none|required|{type:"function",function:{name}}`) and
 * `parallel_tool_calls` (only with tools), `response_format` (`json_object`, or `json_schema`
 * with `strict` — default true — and the projected schema; `text` sends nothing; servers
 * without json_schema support get `json_object`),
 * `max_completion_tokens` or `max_tokens` (per `quirks.maxTokensField`), `temperature` and
 * `top_p` (omitted for reasoning families when `quirks.omitSamplingForReasoningModels`),
 * `stop`, `seed`, `reasoning_effort` (from `request.reasoning.effort`), `prompt_cache_key`
 * (from `request.promptCache.key` when enabled and the server supports it) and, for streams,
 * `stream: true` plus `stream_options.include_usage`.
 * Throws a `validation` error for a named tool choice whose tool is not declared.
 */
export function mapRequest(request: ModelRequest, context: RequestMappingContext): JsonObject {
  const { quirks, modelId } = context;
  const reasoningModel = isReasoningFamily(modelId);
  const body: JsonObject = { ...(request.providerOptions ?? {}) };
  body.model = modelId;
  body.messages = mapMessages(request.messages, context);
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map((tool) => {
      const strict = tool.strict === true && quirks.strictSchemas;
      const fn: JsonObject = {
        name: tool.name,
        description: tool.description,
        parameters: strict ? toStrictSchema(tool.parameters) : tool.parameters,
      };
      if (strict) fn.strict = true;
      return { type: "function", function: fn };
    });
    if (request.toolChoice !== undefined) body.tool_choice = mapToolChoice(request.toolChoice, request);
    if (request.parallelToolCalls !== undefined && quirks.parallelToolCalls) {
      body.parallel_tool_calls = request.parallelToolCalls;
    }
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
  const format = mapResponseFormat(request.responseFormat, quirks);
  if (format !== undefined) body.response_format = format;
  if (request.maxTokens !== undefined) {
    const field =
      quirks.maxTokensField === "auto"
        ? isCurrentOpenAiFamily(modelId)
          ? "max_completion_tokens"
          : "max_tokens"
        : quirks.maxTokensField;
    delete body.max_tokens;
    delete body.max_completion_tokens;
    body[field] = request.maxTokens;
  }
  const omitSampling = reasoningModel && quirks.omitSamplingForReasoningModels;
  if (omitSampling) {
    delete body.temperature;
    delete body.top_p;
  }
  if (request.temperature !== undefined && !omitSampling) body.temperature = request.temperature;
  if (request.topP !== undefined && !omitSampling) body.top_p = request.topP;
  if (request.stop !== undefined && request.stop.length > 0) body.stop = request.stop;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.reasoning?.effort !== undefined) body.reasoning_effort = request.reasoning.effort;
  if (request.promptCache?.key !== undefined && request.promptCache.enabled && quirks.promptCacheKey) {
    body.prompt_cache_key = request.promptCache.key;
  }
  if (context.stream) {
    body.stream = true;
    if (quirks.streamOptions) {
      const given = body.stream_options;
      body.stream_options = { ...(isObject(given) ? given : {}), include_usage: true };
    } else {
      delete body.stream_options;
    }
  } else {
    delete body.stream;
    delete body.stream_options;
  }
  return body;
}

function mapToolChoice(choice: ToolChoice, request: ModelRequest): JsonValue {
  if (typeof choice === "string") return choice;
  return { type: "function", function: { name: declaredToolChoice(choice, request) } };
}

function mapResponseFormat(format: ResponseFormat | undefined, quirks: OpenAiQuirks): JsonObject | undefined {
  if (format === undefined || format.type === "text") return undefined;
  if (format.type === "json_object" || !quirks.jsonSchemaFormat) return { type: "json_object" };
  const strict = (format.strict ?? true) && quirks.strictSchemas;
  const spec: JsonObject = { name: sanitizeName(format.name) };
  if (format.description !== undefined) spec.description = format.description;
  spec.schema = strict ? toStrictSchema(format.schema) : format.schema;
  spec.strict = strict;
  return { type: "json_schema", json_schema: spec };
}

/** `json_schema.name` must match `[a-zA-Z0-9_-]{1,64}`. */
function sanitizeName(name: string): string {
  const clean = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
  return clean === "" ? "response" : clean;
}

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
