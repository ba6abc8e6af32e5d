/**
 * What differs between OpenAI-compatible servers, as data. Presets fill these in; callers can
 * override any of them through `OpenAiChatModelOptions.quirks`.
 */
export interface OpenAiQuirks {
  /**
   * Role for system messages: `"system"`, `"developer"`, or `"auto"` (developer for the
   * current OpenAI families — see {@link isCurrentOpenAiFamily} — system otherwise).
   */
  systemRole: "system" | "developer" | "auto";
  /**
   * Which length field to send: `max_tokens`, `max_completion_tokens`, or `"auto"`
   * (`max_completion_tokens` for the current OpenAI families — `max_tokens` is deprecated there
   * and reasoning models reject it — `max_tokens` otherwise).
   */
  maxTokensField: "max_tokens" | "max_completion_tokens" | "auto";
  /** Omit `temperature` and `top_p` for reasoning families (they reject anything but defaults). */
  omitSamplingForReasoningModels: boolean;
  /** Send `stream_options: { include_usage: true }` on streams (Mistral rejects it). */
  streamOptions: boolean;
  /** The server honours `strict: true` JSON schemas (tools and `json_schema` response formats). */
  strictSchemas: boolean;
  /**
   * The server accepts `response_format: {type: "json_schema"}`. When false (DeepSeek), a
   * json_schema request is sent as `{type: "json_object"}` (the schema is not enforced).
   */
  jsonSchemaFormat: boolean;
  /** Send `prompt_cache_key` from `request.promptCache.key`. */
  promptCacheKey: boolean;
  /**
   * Tool call id format the server insists on: `"any"`, or `"mistral9"` (exactly 9 ASCII
   * letters/digits: ids are rewritten deterministically on send, and generated in that form).
   */
  toolCallIds: "any" | "mistral9";
  /** Split inline `<think>...</think>` out of the answer text into reasoning. */
  thinkTags: boolean;
  /** The model's output starts inside a `<think>` block (templates that open it in the prompt). */
  startsInReasoning: boolean;
  /**
   * Send earlier assistant turns' reasoning back as `reasoning_content` (DeepSeek V4 requires it
   * on every assistant turn, `""` when there was none); `"none"` never sends it.
   */
  reasoningEcho: "none" | "reasoning_content";
  /**
   * `completion_tokens` excludes reasoning tokens (xAI). Also detected automatically when
   * `total_tokens = prompt + completion + reasoning`.
   */
  completionExcludesReasoning: boolean;
  /** Send `parallel_tool_calls` when the request sets it (some servers reject the field). */
  parallelToolCalls: boolean;
  /** Send the tool's `name` on tool-result messages (Mistral's documented tool message shape). */
  toolMessageName: boolean;
}

/** Defaults: the OpenAI API itself. */
export const OPENAI_QUIRKS: Readonly<OpenAiQuirks> = Object.freeze({
  systemRole: "auto",
  maxTokensField: "auto",
  omitSamplingForReasoningModels: true,
  streamOptions: true,
  strictSchemas: true,
  jsonSchemaFormat: true,
  promptCacheKey: true,
  toolCallIds: "any",
  thinkTags: false,
  startsInReasoning: false,
  reasoningEcho: "none",
  completionExcludesReasoning: false,
  parallelToolCalls: true,
  toolMessageName: false,
});

/** Defaults for a generic OpenAI-compatible server (hosted or local) that is not OpenAI. */
export const COMPATIBLE_QUIRKS: Readonly<OpenAiQuirks> = Object.freeze({
  ...OPENAI_QUIRKS,
  systemRole: "system",
  maxTokensField: "max_tokens",
  promptCacheKey: false,
  thinkTags: true,
});

/**
 * True for model ids of OpenAI's reasoning families (o1, o3, o4, ... and gpt-5*, except the
 * `-chat` variants), ignoring a vendor prefix such as `openai/` or `azure/`.
 */
export function isReasoningFamily(modelId: string): boolean {
  const id = modelId.slice(modelId.lastIndexOf("/") + 1).toLowerCase();
  if (/^o\d/.test(id)) return true;
  return /^gpt-5/.test(id) && !/-chat/.test(id);
}

/**
 * True for model ids of the OpenAI families that take the `developer` role and
 * `max_completion_tokens`: the reasoning families (o1, o3, o4, gpt-5, ...) and gpt-4o, gpt-4.1,
 * gpt-4.5 and the gpt-5 chat variants (fine-tunes `ft:gpt-4o-...` included, a vendor prefix such as `openai/` ignored).
 * Legacy ids (gpt-3.5, gpt-4, gpt-4-turbo) and every other vendor's models are false: they keep
 * `system` and `max_tokens`.
 */
export function isCurrentOpenAiFamily(modelId: string): boolean {
  if (isReasoningFamily(modelId)) return true;
  const id = modelId
    .slice(modelId.lastIndexOf("/") + 1)
    .toLowerCase()
    .replace(/^ft:/, "");
  return /^gpt-(?:4o|4\.1|4\.5|5)(?:$|[-:.])/.test(id);
}

/** Merge partial quirks over a base. `undefined` values are ignored. */
export function mergeQuirks(
  base: Readonly<OpenAiQuirks>,
  overrides: Partial<OpenAiQuirks> | undefined,
): OpenAiQuirks {
  const merged: OpenAiQuirks = { ...base };
  if (overrides === undefined) return merged;
  for (const key of Object.keys(overrides) as (keyof OpenAiQuirks)[]) {
    const value = overrides[key];
    if (value !== undefined) (merged as unknown as Record<string, unknown>)[key] = value;
  }
  return merged;
}
