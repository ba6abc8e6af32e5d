import { validationError } from "../errors/tinyagents-error.js";
import type { FetchLike } from "../http/fetch-types.js";
import type { StreamingChatModel } from "../model/chat-model.js";
import { AnthropicModel } from "./anthropic/anthropic-model.js";
import type { AnthropicModelOptions } from "./anthropic/anthropic-options.js";
import {
  compatible,
  deepseek,
  type EnvSource,
  fromPreset,
  PRESETS,
  type PresetName,
  type PresetOptions,
} from "./openai/presets.js";
import { OpenAiResponsesModel } from "./openai-responses/responses-model.js";
import type { OpenAiResponsesModelOptions } from "./openai-responses/responses-options.js";

/** Options for {@link createModel} and {@link fromEnv}. */
export interface CreateModelOptions {
  /** Where environment variables are read (default `process.env`). */
  env?: EnvSource | undefined;
  fetch?: FetchLike | undefined;
  /** API key (default: the provider's environment variable). */
  apiKey?: string | undefined;
  /** Base URL (required for `compatible:`; otherwise overrides the preset's). */
  baseUrl?: string | undefined;
  headers?: Record<string, string> | undefined;
  /** Total call timeout in ms (default 600_000; 0 removes it); see `OpenAiChatModelOptions`. */
  timeoutMs?: number | undefined;
  /** Headers timeout of a streamed call in ms (default 60_000; 0 removes it). */
  headersTimeoutMs?: number | undefined;
  /** Stream idle timeout in ms (default 240_000; 0 disables); see `OpenAiChatModelOptions`. */
  streamIdleTimeoutMs?: number | undefined;
  /** Total byte cap of one response body; see `OpenAiChatModelOptions`. */
  maxResponseBytes?: number | undefined;
}

/** Provider prefixes `createModel` understands, including aliases. */
const ALIASES: Readonly<Record<string, PresetName | "compatible" | "openai-responses">> = {
  openai: "openai",
  "openai-responses": "openai-responses",
  responses: "openai-responses",
  deepseek: "deepseek",
  anthropic: "anthropic",
  claude: "anthropic",
  groq: "groq",
  xai: "xai",
  grok: "xai",
  openrouter: "openrouter",
  together: "together",
  mistral: "mistral",
  ollama: "ollama",
  lmstudio: "lmstudio",
  "lm-studio": "lmstudio",
  lm_studio: "lmstudio",
  llamacpp: "llamacpp",
  "llama.cpp": "llamacpp",
  "llama-cpp": "llamacpp",
  llama_cpp: "llamacpp",
  vllm: "vllm",
  compatible: "compatible",
};

/** The provider names `createModel` accepts as `provider:` prefixes. */
export const KNOWN_PROVIDERS: readonly string[] = [...Object.keys(PRESETS), "openai-responses", "compatible"];

/**
 * Infer the provider from a bare model id: `gpt-`, `chatgpt-`, `o1`/`o3`/`o4`..., `text-`/`davinci`
 * -> openai; `claude-` -> anthropic; `deepseek-` -> deepseek; `grok-` -> xai; `mistral-`,
 * `codestral`, `mixtral`, `magistral`, `devstral`, `ministral`, `pixtral`, `open-mistral` ->
 * mistral. `undefined` when the id says nothing.
 */
export function inferProvider(modelId: string): PresetName | undefined {
  const id = modelId.toLowerCase();
  if (/^(?:gpt-|chatgpt-|o\d(?:$|-|\b)|text-|davinci|babbage)/.test(id)) return "openai";
  if (id.startsWith("claude")) return "anthropic";
  if (id.startsWith("deepseek")) return "deepseek";
  if (id.startsWith("grok")) return "xai";
  if (
    /^(?:mistral|codestral|mixtral|magistral|devstral|ministral|pixtral|open-mistral|open-mixtral)/.test(id)
  ) {
    return "mistral";
  }
  return undefined;
}

/**
 * Build a model from a `"provider:model"` spec (`"openai:gpt-4.1-mini"`, `"groq:llama-3.3-70b-versatile"`,
 * `"openrouter:openai/gpt-4o"`, `"ollama:qwen3:8b"` — only the first `:` splits) or a bare id
 * whose provider can be inferred (`"gpt-4.1"`, `"claude-sonnet-4-5"`, `"deepseek-chat"`, `"grok-4"`).
 * `anthropic` uses the native Messages adapter (`AnthropicModel`); `openai-responses:MODEL` (alias
 * `responses:`) the OpenAI Responses API (`OpenAiResponsesModel`). `compatible:MODEL` needs
 * `options.baseUrl`. Keys come from each provider's environment variable unless given.
 * Throws a `validation` error for an empty spec, an unknown provider (listing the known ones) or
 * a missing key (naming the variable).
 */
export function createModel(spec: string, options: CreateModelOptions = {}): StreamingChatModel {
  const trimmed = typeof spec === "string" ? spec.trim() : "";
  if (trimmed === "") {
    throw validationError(
      `createModel: expected "provider:model" (for example "openai:gpt-4.1-mini"); known providers: ${KNOWN_PROVIDERS.join(", ")}`,
      { field: "model" },
    );
  }
  const colon = trimmed.indexOf(":");
  const prefix = colon === -1 ? undefined : trimmed.slice(0, colon).toLowerCase();
  const alias = prefix === undefined ? undefined : ALIASES[prefix];
  let provider: PresetName | "compatible" | "openai-responses" | undefined = alias;
  let model = alias === undefined ? trimmed : trimmed.slice(colon + 1);
  if (provider === undefined) provider = inferProvider(trimmed);
  if (provider === undefined) {
    throw validationError(
      `createModel: cannot tell the provider of "${trimmed}"; write it as "provider:model" with one of: ${KNOWN_PROVIDERS.join(", ")}`,
      { field: "model" },
    );
  }
  model = model.trim();
  if (model === "") {
    throw validationError(`createModel: "${trimmed}" names no model; write "${provider}:MODEL_ID"`, {
      field: "model",
    });
  }
  if (provider === "compatible") {
    if (options.baseUrl === undefined) {
      throw validationError(
        `createModel: "compatible:${model}" needs { baseUrl } (for example http://localhost:8000/v1)`,
        {
          field: "baseUrl",
        },
      );
    }
    return compatible(options.baseUrl, model, presetOptions(options));
  }
  if (provider === "anthropic") return new AnthropicModel(nativeOptions(model, options));
  if (provider === "openai-responses") return new OpenAiResponsesModel(nativeOptions(model, options));
  if (provider === "deepseek") return deepseek({ ...presetOptions(options), model });
  return fromPreset(provider, { ...presetOptions(options), model });
}

/**
 * The model named by the `TINYAGENTS_MODEL` environment variable (any `createModel` spec).
 * Throws a `validation` error naming the variable when it is unset.
 */
export function fromEnv(options: CreateModelOptions = {}): StreamingChatModel {
  const env = options.env ?? process.env;
  const spec = env.TINYAGENTS_MODEL;
  if (spec === undefined || spec.trim() === "") {
    throw validationError(
      'fromEnv: the TINYAGENTS_MODEL environment variable is not set; set it to "provider:model" (for example openai:gpt-4.1-mini)',
      { field: "TINYAGENTS_MODEL" },
    );
  }
  return createModel(spec, { ...options, env });
}

function presetOptions(options: CreateModelOptions): PresetOptions {
  return {
    env: options.env,
    fetch: options.fetch,
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  };
}

/**
 * The options a native adapter (`AnthropicModel`, `OpenAiResponsesModel`) gets from `createModel`'s:
 * only the fields that are set (their options take no explicit `undefined`), so the adapter's own
 * defaults and environment variables fill the rest.
 */
function nativeOptions(
  model: string,
  options: CreateModelOptions,
): AnthropicModelOptions & OpenAiResponsesModelOptions {
  const native: AnthropicModelOptions & OpenAiResponsesModelOptions = { model };
  if (options.env !== undefined) native.env = { ...options.env };
  if (options.fetch !== undefined) native.fetch = options.fetch;
  if (options.apiKey !== undefined) native.apiKey = options.apiKey;
  if (options.baseUrl !== undefined) native.baseUrl = options.baseUrl;
  if (options.headers !== undefined) native.headers = options.headers;
  if (options.timeoutMs !== undefined) native.timeoutMs = options.timeoutMs;
  if (options.headersTimeoutMs !== undefined) native.headersTimeoutMs = options.headersTimeoutMs;
  if (options.streamIdleTimeoutMs !== undefined) native.streamIdleTimeoutMs = options.streamIdleTimeoutMs;
  if (options.maxResponseBytes !== undefined) native.maxResponseBytes = options.maxResponseBytes;
  return native;
}
