import { validationError } from "../../errors/tinyagents-error.js";
import type { JsonObject } from "../../json/json-value.js";
import type { ModelRequest } from "../../model/model-request.js";
import type { ToolChoice } from "../../tool/tool-choice.js";
import type { ToolSchema } from "../../tool/tool-schema.js";
import { placeAnthropicCacheBreakpoints } from "./cache-breakpoints.js";
import { toAnthropicMessages } from "./map-messages.js";
import type { AnthropicRequestBody, AnthropicToolChoice, AnthropicToolParam } from "./wire-types.js";

/** The smallest thinking budget the API accepts. */
export const ANTHROPIC_MIN_THINKING_BUDGET = 1024;

/** Instruction appended to `system` for `responseFormat: { type: "json_object" }` (no native mode). */
export const ANTHROPIC_JSON_OBJECT_INSTRUCTION =
  "Respond with a single valid JSON object and nothing else: no prose, no code fences.";

/** Adapter settings that complete a request. */
export interface AnthropicRequestSettings {
  /** Provider model id. */
  model: string;
  /** `max_tokens` when the request does not set `maxTokens`. */
  defaultMaxTokens: number;
  /** Ask for an SSE stream (`stream: true`). */
  stream: boolean;
}

/**
 * Build the Anthropic Messages request body for a neutral request. Field by field:
 * - `messages` / `system`: see `toAnthropicMessages`; `tools` -> `{name, description,
 *   input_schema, strict?}`; `toolChoice` auto/required/none/named -> `auto`/`any`/`none`/`tool`;
 *   `parallelToolCalls: false` -> `disable_parallel_tool_use: true` (not with `none`);
 *   `tool_choice` is only sent together with tools;
 * - cache breakpoints: see `placeAnthropicCacheBreakpoints` (from `cacheSegments` and `promptCache`);
 * - `reasoning.budgetTokens` -> `thinking: {type:"enabled", budget_tokens}` (must be >= 1024 and
 *   below `max_tokens`; without an explicit `maxTokens`, `max_tokens` is raised to budget +
 *   default); `reasoning.effort` -> `output_config.effort` (`minimal` -> `low`);
 * - `temperature` / `topP` -> `temperature` / `top_p`, omitted while thinking is on;
 * - `stop` -> `stop_sequences`; `maxTokens` -> `max_tokens`; `seed` has no Anthropic field;
 * - `responseFormat` json_schema -> native `output_config.format: {type:"json_schema", schema}`;
 *   json_object -> an instruction text block appended to `system` (after any breakpoint);
 * - `providerOptions` are copied in first, so every field set here wins over them.
 * Throws a `validation` error for a thinking budget the API would reject.
 */
export function toAnthropicRequest(request: ModelRequest, settings: AnthropicRequestSettings): JsonObject {
  const mapped = toAnthropicMessages(request.messages);
  const body: AnthropicRequestBody = {
    model: settings.model,
    max_tokens: request.maxTokens ?? settings.defaultMaxTokens,
    messages: mapped.messages,
  };
  const tools = request.tools?.map(toAnthropicTool) ?? [];
  placeAnthropicCacheBreakpoints(
    { tools, system: mapped.system, messages: mapped.messages, cacheTargets: mapped.cacheTargets },
    request.cacheSegments,
    request.promptCache,
  );
  const format = request.responseFormat;
  if (format?.type === "json_object")
    mapped.system.push({ type: "text", text: ANTHROPIC_JSON_OBJECT_INSTRUCTION });
  if (mapped.system.length > 0) body.system = mapped.system;
  if (tools.length > 0) {
    body.tools = tools;
    const choice = toAnthropicToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice !== undefined) body.tool_choice = choice;
  }
  const budget = request.reasoning?.budgetTokens;
  if (budget !== undefined) {
    if (!Number.isInteger(budget) || budget < ANTHROPIC_MIN_THINKING_BUDGET) {
      throw validationError(
        `reasoning.budgetTokens must be an integer >= ${ANTHROPIC_MIN_THINKING_BUDGET} for Anthropic extended thinking (got ${budget})`,
        { field: "reasoning.budgetTokens" },
      );
    }
    if (body.max_tokens <= budget) {
      if (request.maxTokens !== undefined) {
        throw validationError(
          `maxTokens (${request.maxTokens}) must be greater than reasoning.budgetTokens (${budget}): Anthropic counts thinking inside max_tokens; raise maxTokens or lower the budget`,
          { field: "maxTokens" },
        );
      }
      body.max_tokens = budget + settings.defaultMaxTokens;
    }
    body.thinking = { type: "enabled", budget_tokens: budget };
  }
  const effort = request.reasoning?.effort;
  if (effort !== undefined) body.output_config = { effort: effort === "minimal" ? "low" : effort };
  if (format?.type === "json_schema") {
    body.output_config = { ...body.output_config, format: { type: "json_schema", schema: format.schema } };
  }
  if (body.thinking === undefined) {
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
  }
  if (request.stop !== undefined && request.stop.length > 0) body.stop_sequences = request.stop;
  if (settings.stream) body.stream = true;
  return { ...request.providerOptions, ...body };
}

/** Map a tool declaration; `strict` is sent only when true. */
export function toAnthropicTool(tool: ToolSchema): AnthropicToolParam {
  const param: AnthropicToolParam = { name: tool.name, input_schema: tool.parameters };
  if (tool.description !== "") param.description = tool.description;
  if (tool.strict === true) param.strict = true;
  return param;
}

/**
 * Map a neutral tool choice. `undefined` stays `undefined` (the API default is `auto`) unless
 * parallel calls are disabled, which needs an explicit `{type:"auto", disable_parallel_tool_use}`.
 */
export function toAnthropicToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): AnthropicToolChoice | undefined {
  const single = parallelToolCalls === false;
  if (choice === "none") return { type: "none" };
  let mapped: AnthropicToolChoice;
  if (choice === undefined) {
    if (!single) return undefined;
    mapped = { type: "auto" };
  } else if (choice === "auto") mapped = { type: "auto" };
  else if (choice === "required") mapped = { type: "any" };
  else mapped = { type: "tool", name: choice.name };
  if (single) mapped.disable_parallel_tool_use = true;
  return mapped;
}
