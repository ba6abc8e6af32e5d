import {
  type ResponseFormat,
  type TinyAgentsError,
  type ToolChoice,
  validationError,
} from "@tinyagents/inference";
import type { ModelRegistry } from "../model-registry/model-registry.js";
import type { ToolRegistry } from "../tool/tool-registry.js";
import { withFinalAnswerTool } from "./final-answer-tool.js";
import type { StructuredSpec } from "./structured-spec.js";

/** How one run enforces its structured output (decided once, at the run's start). */
export interface PreparedStructured<State = unknown, Ctx = unknown> {
  spec: StructuredSpec<unknown>;
  strategy: "native" | "tool";
  /** Set on every request (native strategy). */
  responseFormat?: ResponseFormat;
  /** Set on every request (tool strategy without other tools: the final-answer tool is forced). */
  toolChoice?: ToolChoice;
  /** The run's tools (tool strategy: the harness's tools plus the final-answer tool). */
  tools?: ToolRegistry<State, Ctx>;
}

/**
 * Decide the strategy for a run and prepare what its requests carry. `auto` is resolved against
 * the model the run starts on (`agentDefault`, else the registry default): native when its
 * profile claims `nativeStructuredOutput` (or it has no profile), else tool when it supports
 * tools, else native. Deciding once keeps the request layout (and so the prompt-cache prefix)
 * the same on every turn. Throws `validation` when the schema name collides with a registered
 * tool (checked whatever the strategy, so `auto` cannot flip into a collision).
 */
export function prepareStructured<State, Ctx>(
  spec: StructuredSpec<unknown>,
  models: ModelRegistry<State>,
  tools: ToolRegistry<State, Ctx>,
  agentDefault: string | undefined,
): PreparedStructured<State, Ctx> {
  if (tools.has(spec.name)) throw nameCollision(spec.name);
  const strategy = spec.strategy === "auto" ? autoStrategy(models, agentDefault) : spec.strategy;
  if (strategy === "native") return { spec, strategy, responseFormat: spec.format };
  const overlay = withFinalAnswerTool(spec, tools);
  const prepared: PreparedStructured<State, Ctx> = { spec, strategy, tools: overlay };
  if (tools.size === 0) prepared.toolChoice = { type: "tool", name: spec.name };
  return prepared;
}

function autoStrategy<State>(
  models: ModelRegistry<State>,
  agentDefault: string | undefined,
): "native" | "tool" {
  let profile: ReturnType<ModelRegistry<State>["require"]>["model"]["profile"];
  try {
    profile = models.resolve(agentDefault === undefined ? {} : { agentDefault }).registration.model.profile;
  } catch {
    return "native";
  }
  if (profile === undefined || profile.capabilities.nativeStructuredOutput) return "native";
  return profile.capabilities.tools ? "tool" : "native";
}

/** The `validation` error for a response-format name that is also a registered tool's name. */
export function nameCollision(name: string): TinyAgentsError {
  return validationError(
    `response format "${name}" has the same name as a registered tool; the final answer and the tool would be ` +
      `indistinguishable — rename the schema (withResponseFormat(schema, { name: "..." })) or the tool`,
    { field: "name", schema: name },
  );
}
