import { validationError } from "../../errors/tinyagents-error.js";
import { checkBaseUrl } from "../../http/base-url.js";
import type { FetchLike } from "../../http/fetch-types.js";
import type { ModelProfile } from "../../model/model-profile.js";
import { DEFAULT_ANTHROPIC_MODEL } from "../anthropic/anthropic-options.js";
import { OpenAiChatModel } from "./openai-chat-model.js";
import { COMPATIBLE_QUIRKS, mergeQuirks, OPENAI_QUIRKS, type OpenAiQuirks } from "./quirks.js";

/** Environment variables as a plain record (default: `process.env`). */
export type EnvSource = Readonly<Record<string, string | undefined>>;

/** Options every preset accepts. Explicit values win over environment variables. */
export interface PresetOptions {
  /** Model id (default: the preset's default model). */
  model?: string | undefined;
  /** API key (default: the preset's environment variable). */
  apiKey?: string | undefined;
  /** Base URL (default: the preset's base-URL variable, else its documented URL). */
  baseUrl?: string | undefined;
  /** Where environment variables are read (default `process.env`). */
  env?: EnvSource | undefined;
  fetch?: FetchLike | undefined;
  headers?: Record<string, string> | undefined;
  quirks?: Partial<OpenAiQuirks> | undefined;
  profile?: ModelProfile | undefined;
  generateToolCallId?: (() => string) | undefined;
  /** Total call timeout in ms (default 600_000; 0 removes it); see `OpenAiChatModelOptions`. */
  timeoutMs?: number | undefined;
  /** Headers timeout of a streamed call in ms (default 60_000; 0 removes it). */
  headersTimeoutMs?: number | undefined;
  /** Stream idle timeout in ms (default 240_000; 0 disables); see `OpenAiChatModelOptions`. */
  streamIdleTimeoutMs?: number | undefined;
  /** Total byte cap of one response body; see `OpenAiChatModelOptions`. */
  maxResponseBytes?: number | undefined;
}

/** The static description of a preset. */
export interface PresetSpec {
  /** Provider name (also the `createModel` prefix). */
  provider: string;
  /** Documented base URL (including `/v1`). */
  baseUrl: string;
  /** Variable that overrides the base URL. */
  baseUrlEnv: string;
  /** Variable holding the API key; `undefined` for local servers that need none. */
  apiKeyEnv: string | undefined;
  /** Whether a missing key is an error (hosted) or fine (local servers). */
  keyRequired: boolean;
  /** Default model id, when the preset has one. */
  defaultModel: string | undefined;
  /** Quirks over the generic compatible defaults. */
  quirks: Readonly<OpenAiQuirks>;
}

const local = (overrides: Partial<OpenAiQuirks>): Readonly<OpenAiQuirks> =>
  Object.freeze(mergeQuirks(COMPATIBLE_QUIRKS, { strictSchemas: false, ...overrides }));
const hosted = (overrides: Partial<OpenAiQuirks>): Readonly<OpenAiQuirks> =>
  Object.freeze(mergeQuirks(COMPATIBLE_QUIRKS, overrides));

/** Every preset, by provider name. */
export const PRESETS = {
  openai: {
    provider: "openai",
    baseUrl: "https://api.openai.com/v1",
    baseUrlEnv: "OPENAI_BASE_URL",
    apiKeyEnv: "OPENAI_API_KEY",
    keyRequired: true,
    defaultModel: "gpt-4.1-mini",
    quirks: OPENAI_QUIRKS,
  },
  deepseek: {
    provider: "deepseek",
    baseUrl: "https://api.deepseek.com/v1",
    baseUrlEnv: "DEEPSEEK_BASE_URL",
    apiKeyEnv: "DEEPSEEK_API_KEY",
    keyRequired: true,
    defaultModel: "deepseek-chat",
    quirks: hosted({ thinkTags: false, strictSchemas: false, jsonSchemaFormat: false }),
  },
  anthropic: {
    provider: "anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    baseUrlEnv: "ANTHROPIC_BASE_URL",
    apiKeyEnv: "ANTHROPIC_API_KEY",
    keyRequired: true,
    // The native adapter's default: `anthropicCompatible()` and `AnthropicModel` pick the same model.
    defaultModel: DEFAULT_ANTHROPIC_MODEL,
    quirks: hosted({ thinkTags: false, strictSchemas: false, parallelToolCalls: false }),
  },
  groq: {
    provider: "groq",
    baseUrl: "https://api.groq.com/openai/v1",
    baseUrlEnv: "GROQ_BASE_URL",
    apiKeyEnv: "GROQ_API_KEY",
    keyRequired: true,
    defaultModel: "llama-3.3-70b-versatile",
    quirks: hosted({}),
  },
  xai: {
    provider: "xai",
    baseUrl: "https://api.x.ai/v1",
    baseUrlEnv: "XAI_BASE_URL",
    apiKeyEnv: "XAI_API_KEY",
    keyRequired: true,
    defaultModel: "grok-4",
    quirks: hosted({ thinkTags: false, completionExcludesReasoning: true }),
  },
  openrouter: {
    provider: "openrouter",
    baseUrl: "https://openrouter.ai/api/v1",
    baseUrlEnv: "OPENROUTER_BASE_URL",
    apiKeyEnv: "OPENROUTER_API_KEY",
    keyRequired: true,
    defaultModel: "openai/gpt-4o-mini",
    quirks: hosted({ systemRole: "auto", maxTokensField: "auto", promptCacheKey: true }),
  },
  together: {
    provider: "together",
    baseUrl: "https://api.together.xyz/v1",
    baseUrlEnv: "TOGETHER_BASE_URL",
    apiKeyEnv: "TOGETHER_API_KEY",
    keyRequired: true,
    defaultModel: "meta-llama/Llama-3.3-70B-Instruct-Turbo",
    quirks: hosted({ strictSchemas: false }),
  },
  mistral: {
    provider: "mistral",
    baseUrl: "https://api.mistral.ai/v1",
    baseUrlEnv: "MISTRAL_BASE_URL",
    apiKeyEnv: "MISTRAL_API_KEY",
    keyRequired: true,
    defaultModel: "mistral-small-latest",
    quirks: hosted({
      thinkTags: false,
      streamOptions: false,
      toolCallIds: "mistral9",
      toolMessageName: true,
    }),
  },
  ollama: {
    provider: "ollama",
    baseUrl: "http://localhost:11434/v1",
    baseUrlEnv: "OLLAMA_HOST",
    apiKeyEnv: undefined,
    keyRequired: false,
    defaultModel: "llama3.2",
    quirks: local({}),
  },
  lmstudio: {
    provider: "lmstudio",
    baseUrl: "http://localhost:1234/v1",
    baseUrlEnv: "LMSTUDIO_BASE_URL",
    apiKeyEnv: undefined,
    keyRequired: false,
    defaultModel: undefined,
    quirks: local({}),
  },
  llamacpp: {
    provider: "llamacpp",
    baseUrl: "http://localhost:8080/v1",
    baseUrlEnv: "LLAMA_CPP_BASE_URL",
    apiKeyEnv: undefined,
    keyRequired: false,
    defaultModel: undefined,
    quirks: local({}),
  },
  vllm: {
    provider: "vllm",
    baseUrl: "http://localhost:8000/v1",
    baseUrlEnv: "VLLM_BASE_URL",
    apiKeyEnv: undefined,
    keyRequired: false,
    defaultModel: undefined,
    quirks: local({ strictSchemas: true }),
  },
} as const satisfies Record<string, PresetSpec>;

/** A preset name. */
export type PresetName = keyof typeof PRESETS;

/**
 * Build a model from a preset: base URL from `options.baseUrl`, else the preset's base-URL
 * variable (a root URL without `/v1` gets it appended; `OLLAMA_HOST` may be `host:port`), else
 * the documented URL; API key from `options.apiKey`, else the preset's key variable.
 * Throws a `validation` error naming the variable when a hosted preset has no key, and when no
 * model is given for a preset without a default (LM Studio, llama.cpp, vLLM).
 */
export function fromPreset(name: PresetName, options: PresetOptions = {}): OpenAiChatModel {
  const spec: PresetSpec = PRESETS[name];
  const env = options.env ?? process.env;
  const model = options.model ?? spec.defaultModel;
  if (model === undefined || model === "") {
    throw validationError(
      `${spec.provider}: no model given and the preset has no default; pass { model: "..." }`,
      {
        field: "model",
      },
    );
  }
  const envKey = spec.apiKeyEnv === undefined ? undefined : env[spec.apiKeyEnv];
  const apiKey = options.apiKey ?? (envKey === "" ? undefined : envKey);
  if (spec.keyRequired && (apiKey === undefined || apiKey === "")) {
    throw validationError(
      `${spec.provider}: no API key: set the ${spec.apiKeyEnv} environment variable (or pass { apiKey }) to use the ${spec.provider} preset`,
      { field: "apiKey", envVar: spec.apiKeyEnv ?? null },
    );
  }
  const envBase = env[spec.baseUrlEnv];
  const baseUrl =
    options.baseUrl ?? (envBase === undefined || envBase === "" ? spec.baseUrl : withV1(envBase));
  return new OpenAiChatModel({
    model,
    baseUrl,
    apiKey,
    provider: spec.provider,
    fetch: options.fetch,
    headers: options.headers,
    baseQuirks: spec.quirks,
    quirks: options.quirks,
    profile: options.profile,
    generateToolCallId: options.generateToolCallId,
    timeoutMs: options.timeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  });
}

/** Ensure a user-given root URL ends in a version path: `host:port` -> `http://host:port/v1`. */
function withV1(url: string): string {
  let out = url.trim().replace(/\/+$/, "");
  if (!/^[a-z]+:\/\//i.test(out)) out = `http://${out}`;
  return /\/v\d+(?:beta)?$/.test(out) || /\/openai\/v1$/.test(out) ? out : `${out}/v1`;
}

/** OpenAI (`OPENAI_API_KEY`, `OPENAI_BASE_URL`; default model `gpt-4.1-mini`). */
export const openai = (options?: PresetOptions): OpenAiChatModel => fromPreset("openai", options);
/** DeepSeek (`DEEPSEEK_API_KEY`, `DEEPSEEK_BASE_URL`; `deepseek-chat`). Reasoning arrives as `reasoning_content`. */
export const deepseek = (options?: PresetOptions): OpenAiChatModel =>
  fromPreset("deepseek", {
    ...options,
    quirks: { reasoningEcho: reasoningEchoFor(options?.model ?? "deepseek-chat"), ...options?.quirks },
  });
/**
 * Anthropic's OpenAI-compatible endpoint (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`; the native
 * adapter's default model, `DEFAULT_ANTHROPIC_MODEL`), through the OpenAI Chat Completions client.
 * Prefer the native adapter, `new AnthropicModel()` (thinking, cache control, Anthropic's errors).
 */
export const anthropicCompatible = (options?: PresetOptions): OpenAiChatModel =>
  fromPreset("anthropic", options);
/** Groq (`GROQ_API_KEY`, `GROQ_BASE_URL`; `llama-3.3-70b-versatile`). */
export const groq = (options?: PresetOptions): OpenAiChatModel => fromPreset("groq", options);
/** xAI (`XAI_API_KEY`, `XAI_BASE_URL`; `grok-4`). Its `completion_tokens` exclude reasoning; usage corrects that. */
export const xai = (options?: PresetOptions): OpenAiChatModel => fromPreset("xai", options);
/** OpenRouter (`OPENROUTER_API_KEY`, `OPENROUTER_BASE_URL`; `openai/gpt-4o-mini`). */
export const openrouter = (options?: PresetOptions): OpenAiChatModel => fromPreset("openrouter", options);
/** Together AI (`TOGETHER_API_KEY`, `TOGETHER_BASE_URL`). */
export const together = (options?: PresetOptions): OpenAiChatModel => fromPreset("together", options);
/** Mistral (`MISTRAL_API_KEY`, `MISTRAL_BASE_URL`; `mistral-small-latest`). Tool call ids become 9 letters/digits. */
export const mistral = (options?: PresetOptions): OpenAiChatModel => fromPreset("mistral", options);
/**
 * Ollama's OpenAI-compatible `/v1` (no key; `OLLAMA_HOST`; `llama3.2`), through the OpenAI Chat
 * Completions client. The native adapter is `new OllamaModel()` (Ollama's `/api/chat`).
 */
export const ollamaCompatible = (options?: PresetOptions): OpenAiChatModel => fromPreset("ollama", options);
/** LM Studio (no key; `LMSTUDIO_BASE_URL`, default `http://localhost:1234/v1`). Needs `model`. */
export const lmStudio = (options?: PresetOptions): OpenAiChatModel => fromPreset("lmstudio", options);
/** llama.cpp `llama-server` (no key; `LLAMA_CPP_BASE_URL`, default `http://localhost:8080/v1`). Needs `model`. */
export const llamaCpp = (options?: PresetOptions): OpenAiChatModel => fromPreset("llamacpp", options);
/** vLLM (no key; `VLLM_BASE_URL`, default `http://localhost:8000/v1`). Needs `model`. */
export const vllm = (options?: PresetOptions): OpenAiChatModel => fromPreset("vllm", options);

/** Options for {@link compatible}. */
export interface CompatibleOptions extends Omit<PresetOptions, "model" | "baseUrl"> {
  /** Provider name for errors and usage (default `compatible`). */
  provider?: string | undefined;
}

/**
 * Any other OpenAI-compatible endpoint. `baseUrl` should include the version path
 * (`https://host/v1`). The key is optional (sent only when given). Quirks default to the
 * generic compatible set: `system` role, `max_tokens`, inline `<think>` extraction on.
 */
export function compatible(baseUrl: string, model: string, options: CompatibleOptions = {}): OpenAiChatModel {
  checkBaseUrl(baseUrl, "compatible");
  return new OpenAiChatModel({
    model,
    baseUrl,
    apiKey: options.apiKey,
    provider: options.provider ?? "compatible",
    fetch: options.fetch,
    headers: options.headers,
    baseQuirks: COMPATIBLE_QUIRKS,
    quirks: options.quirks,
    profile: options.profile,
    generateToolCallId: options.generateToolCallId,
    timeoutMs: options.timeoutMs,
    headersTimeoutMs: options.headersTimeoutMs,
    streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    maxResponseBytes: options.maxResponseBytes,
  });
}

/** DeepSeek R1 (`deepseek-reasoner`) must not get reasoning back; the V4 models require it. */
function reasoningEchoFor(model: string): OpenAiQuirks["reasoningEcho"] {
  return /reasoner|r1/i.test(model) ? "none" : "reasoning_content";
}
