import type { ErrorSummary, Usage } from "@tinyagents/inference";

// This file is shared by the `/otel` and `/langfuse` subpaths. It must never import an
// OpenTelemetry package: the Langfuse exporter builds OTLP by hand and must load without one.

/**
 * Attribute keys of the OpenTelemetry GenAI semantic conventions (status: Development) that
 * tinyagents emits, spelled as the `ATTR_*` constants of `@opentelemetry/semantic-conventions/incubating`
 * (a test compares every value with its constant; the values are copied so that this file loads
 * without an OpenTelemetry package). `gen_ai.provider.name` is the current name; `gen_ai.system`
 * is the one used by instrumentations that follow semantic conventions v1.36.0 or older.
 */
export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  legacySystem: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  requestStream: "gen_ai.request.stream",
  requestTemperature: "gen_ai.request.temperature",
  requestTopP: "gen_ai.request.top_p",
  requestMaxTokens: "gen_ai.request.max_tokens",
  requestSeed: "gen_ai.request.seed",
  requestStopSequences: "gen_ai.request.stop_sequences",
  outputType: "gen_ai.output.type",
  responseId: "gen_ai.response.id",
  responseModel: "gen_ai.response.model",
  responseFinishReasons: "gen_ai.response.finish_reasons",
  responseTimeToFirstChunk: "gen_ai.response.time_to_first_chunk",
  usageInputTokens: "gen_ai.usage.input_tokens",
  usageOutputTokens: "gen_ai.usage.output_tokens",
  usageCacheReadInputTokens: "gen_ai.usage.cache_read.input_tokens",
  usageCacheCreationInputTokens: "gen_ai.usage.cache_creation.input_tokens",
  usageReasoningOutputTokens: "gen_ai.usage.reasoning.output_tokens",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  agentDescription: "gen_ai.agent.description",
  agentVersion: "gen_ai.agent.version",
  conversationId: "gen_ai.conversation.id",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolDescription: "gen_ai.tool.description",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  toolDefinitions: "gen_ai.tool.definitions",
  systemInstructions: "gen_ai.system_instructions",
  inputMessages: "gen_ai.input.messages",
  tokenType: "gen_ai.token.type",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type",
  serverAddress: "server.address",
  serverPort: "server.port",
  httpResponseStatusCode: "http.response.status_code",
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
 * (`details.providerCode`, e.g. `insufficient_quota`), else the HTTP status of a provider
 * failure (`"429"`, `"503"`, as the HTTP conventions do), else the tinyagents error code
 * (`provider`, `timeout`, `cancelled`, ...). All are low-cardinality, as the conventions ask.
 */
export function errorType(error: ErrorSummary): string {
  const providerCode = error.details?.providerCode;
  if (typeof providerCode === "string" && providerCode !== "") return providerCode;
  const status = httpStatus(error);
  return status === undefined ? error.code : String(status);
}

/** The HTTP status a provider failure carries (`details.status`), if any. */
export function httpStatus(error: ErrorSummary): number | undefined {
  const status = error.details?.status;
  return typeof status === "number" && Number.isInteger(status) && status > 0 ? status : undefined;
}

/**
 * `server.address` and `server.port` of a model endpoint URL (the port defaults to the scheme's:
 * 443 for https, 80 for http). Empty for a value that is not a URL.
 */
export function serverAttributes(endpoint: string | undefined): Record<string, string | number> {
  if (endpoint === undefined) return {};
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return {};
  }
  const port =
    url.port !== ""
      ? Number(url.port)
      : url.protocol === "https:"
        ? 443
        : url.protocol === "http:"
          ? 80
          : undefined;
  const attributes: Record<string, string | number> = {
    [GEN_AI.serverAddress]: url.hostname.replace(/^\[|\]$/g, ""),
  };
  if (port !== undefined) attributes[GEN_AI.serverPort] = port;
  return attributes;
}

/**
 * GenAI request attributes of a `model.request` event's parameters (`temperature`, `topP`,
 * `maxTokens`, `seed`, `stop`, `responseFormat`).
 */
export function requestAttributes(
  parameters: Record<string, unknown>,
): Record<string, string | number | string[]> {
  const attributes: Record<string, string | number | string[]> = {};
  const number = (key: string, attribute: string) => {
    const value = parameters[key];
    if (typeof value === "number") attributes[attribute] = value;
  };
  number("temperature", GEN_AI.requestTemperature);
  number("topP", GEN_AI.requestTopP);
  number("maxTokens", GEN_AI.requestMaxTokens);
  number("seed", GEN_AI.requestSeed);
  const stop = parameters.stop;
  if (Array.isArray(stop)) attributes[GEN_AI.requestStopSequences] = stop.map(String);
  const format = parameters.responseFormat;
  if (format === "json_schema" || format === "json_object" || format === "json")
    attributes[GEN_AI.outputType] = "json";
  else if (format === "text") attributes[GEN_AI.outputType] = "text";
  return attributes;
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
 * that), and cache and reasoning counts are subsets, so they are reported as-is. Cache reads and
 * writes are reported even when 0 (a cache miss is worth seeing); reasoning only when non-zero
 * (most models have none).
 */
export function usageAttributes(usage: Usage): Record<string, number> {
  const tokens = genAiTokenCounts(usage);
  const attributes: Record<string, number> = {
    [GEN_AI.usageInputTokens]: tokens.input,
    [GEN_AI.usageOutputTokens]: tokens.output,
  };
  attributes[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens;
  attributes[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens;
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
