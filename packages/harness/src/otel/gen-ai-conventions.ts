import type { ErrorSummary, Usage } from "@tinyagents/inference";

// This file is shared by the `/otel` and `/langfuse` subpaths. It must never import an
// OpenTelemetry package: the Langfuse exporter builds OTLP by hand and must load without one.

/**
 * Attribute keys of the OpenTelemetry GenAI semantic conventions (status: Development) that
 * tinyagents emits. `gen_ai.provider.name` is the current name; `gen_ai.system` is the one used
 * by instrumentations that follow semantic conventions v1.36.0 or older.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  legacySystem: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  requestStream: "gen_ai.request.stream",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolCallArguments: "gen_ai.tool.call.arguments",
  tokenType: "gen_ai.token.type",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
} as const;

/** tinyagents-specific attribute keys (correlation with events, journals and status records). */
export const TINYAGENTS_ATTR = {
  runId: "tinyagents.run.id",
  parentRunId: "tinyagents.run.parent_id",
  rootRunId: "tinyagents.run.root_id",
  depth: "tinyagents.run.depth",
  modelCalls: "tinyagents.run.model_calls",
  toolCalls: "tinyagents.run.tool_calls",
  /**
   * Run totals live under this prefix (`.input_tokens`, `.output_tokens`, ...), not under
   * `gen_ai.usage.*`: backends that sum `gen_ai.usage.*` over every span (Langfuse does) would
   * otherwise count each call twice, once on its chat span and once on the run span.
   */
  runUsagePrefix: "tinyagents.run.usage",
  callId: "tinyagents.call.id",
  attempt: "tinyagents.model.attempt",
  modelName: "tinyagents.model.name",
  servedFromCache: "tinyagents.model.served_from_cache",
  costTotalUsd: "tinyagents.cost.total_usd",
  toolIsError: "tinyagents.tool.is_error",
  toolOutputBytes: "tinyagents.tool.output_bytes",
  incomplete: "tinyagents.incomplete",
  /** How a run ended on the `gen_ai.invoke_agent.duration` metric: `completed`, `failed` or `interrupted`. */
  runOutcome: "tinyagents.run.outcome",
} as const;

/** The GenAI operation names tinyagents emits. */
export type GenAiOperation = "invoke_agent" | "chat" | "execute_tool";

/** How spans and observations of a run are named: a fixed agent name, or one computed per run. */
export type AgentNameOption =
  | string
  | ((run: { runId: string; parentRunId?: string; depth: number }) => string | undefined);

/** Resolve {@link AgentNameOption} for one run; `undefined` when no name is configured. */
export function resolveAgentName(
  option: AgentNameOption | undefined,
  run: { runId: string; parentRunId?: string; depth: number },
): string | undefined {
  if (option === undefined) return undefined;
  const name = typeof option === "string" ? option : option(run);
  return name === undefined || name === "" ? undefined : name;
}

/** `invoke_agent {name}`, or `invoke_agent` when the agent has no name (per the conventions). */
export function agentSpanName(agentName: string | undefined): string {
  return agentName === undefined ? "invoke_agent" : `invoke_agent ${agentName}`;
}

/** `chat {model}`. */
export function chatSpanName(model: string): string {
  return model === "" ? "chat" : `chat ${model}`;
}

/** `execute_tool {name}`. */
export function toolSpanName(toolName: string): string {
  return `execute_tool ${toolName}`;
}

/** Provider ids whose well-known `gen_ai.provider.name` value differs from the adapter's id. */
const WELL_KNOWN_PROVIDERS: Readonly<Record<string, string>> = {
  mistral: "mistral_ai",
  mistralai: "mistral_ai",
  xai: "x_ai",
  "x-ai": "x_ai",
  grok: "x_ai",
  gemini: "gcp.gemini",
  google: "gcp.gen_ai",
  vertex: "gcp.vertex_ai",
  bedrock: "aws.bedrock",
  azure: "azure.ai.openai",
  moonshot: "moonshot_ai",
  watsonx: "ibm.watsonx.ai",
};

/**
 * The `gen_ai.provider.name` value for a model adapter's `provider` id: the well-known value
 * when there is one (`mistral` -> `mistral_ai`, `xai` -> `x_ai`, ...), else the id lower-cased
 * (`openai`, `anthropic`, `deepseek`, `groq` already match; `ollama` has no well-known value).
 */
export function genAiProviderName(provider: string): string {
  const key = provider.toLowerCase();
  return WELL_KNOWN_PROVIDERS[key] ?? key;
}

/**
 * The `error.type` of a failure: the provider's own error code when the error carries one
 * (`details.providerCode`, e.g. `insufficient_quota`), else the tinyagents error code
 * (`provider`, `timeout`, `cancelled`, ...). Both are low-cardinality, as the conventions ask.
 */
export function errorType(error: ErrorSummary): string {
  const providerCode = error.details?.providerCode;
  return typeof providerCode === "string" && providerCode !== "" ? providerCode : error.code;
}

/**
 * The GenAI `input` and `output` token counts of a usage record: `inputTokens` already includes
 * cached tokens (cache reads and writes), as the conventions want for `gen_ai.usage.input_tokens`
 * and the `input` token type of `gen_ai.client.token.usage`.
 */
export function genAiTokenCounts(usage: Usage): { input: number; output: number } {
  return { input: usage.inputTokens, output: usage.outputTokens };
}

/**
 * GenAI usage attributes. `inputTokens` already includes cached tokens (the conventions want
 * that), and cache and reasoning counts are subsets, so they are reported as-is and only when
 * non-zero.
 */
export function usageAttributes(usage: Usage): Record<string, number> {
  const tokens = genAiTokenCounts(usage);
  const attributes: Record<string, number> = {
    [GEN_AI.usageInputTokens]: tokens.input,
    [GEN_AI.usageOutputTokens]: tokens.output,
  };
  if (usage.cacheReadTokens > 0) attributes[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens;
  if (usage.cacheWriteTokens > 0) attributes[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens;
  if (usage.reasoningTokens > 0) attributes[GEN_AI.usageReasoningOutputTokens] = usage.reasoningTokens;
  return attributes;
}

/** Run usage totals as `tinyagents.run.usage.*` attributes (see {@link TINYAGENTS_ATTR.runUsagePrefix}). */
export function runUsageAttributes(usage: Usage): Record<string, number> {
  const attributes: Record<string, number> = {};
  for (const [key, value] of Object.entries(usageAttributes(usage))) {
    attributes[`${TINYAGENTS_ATTR.runUsagePrefix}.${key.slice("gen_ai.usage.".length)}`] = value;
  }
  return attributes;
}

/** Structured `gen_ai.output.messages` for streamed answer text (opt-in content capture). */
export function outputMessagesJson(text: string, finishReason: string | undefined): string {
  const message: Record<string, unknown> = { role: "assistant", parts: [{ type: "text", content: text }] };
  if (finishReason !== undefined) message.finish_reason = finishReason;
  return JSON.stringify([message]);
}
