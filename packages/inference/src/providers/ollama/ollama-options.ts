import { validationError } from "../../errors/tinyagents-error.js";
import type { FetchLike } from "../../http/fetch-types.js";
import type { JsonObject } from "../../json/json-value.js";
import type { ModelProfile } from "../../model/model-profile.js";
import { ollamaBaseUrlFromHost } from "./host.js";

/** Model used when neither `model` nor `OLLAMA_MODEL` says otherwise. */
export const DEFAULT_OLLAMA_MODEL = "llama3.2";

/** Options of {@link OllamaModel}. Every field is optional; see each for its default. */
export interface OllamaModelOptions {
  /** Model name (`name:tag`). Default: env `OLLAMA_MODEL`, else {@link DEFAULT_OLLAMA_MODEL}. */
  model?: string;
  /**
   * Server origin (the adapter appends `/api/chat`). Default: env `OLLAMA_HOST` read with Ollama's
   * own rules (see `ollamaBaseUrlFromHost`), else `http://127.0.0.1:11434`.
   */
  baseUrl?: string;
  /** `keep_alive` sent with every request (`"10m"`, seconds, `0` to unload); `providerOptions.keep_alive` wins. */
  keepAlive?: string | number;
  /** Default Modelfile `options` (`num_ctx`, `top_k`, ...); request fields and `providerOptions.options` win. */
  options?: JsonObject;
  /** The fetch to call (default: the platform `fetch`). */
  fetch?: FetchLike;
  /** Extra headers on every request (for example `authorization` for a proxied or hosted server). */
  headers?: Record<string, string>;
  /** Static facts about the model (context window, capabilities). Default: none (assumed capable). */
  profile?: ModelProfile;
  /** Where to read the environment variables (default `process.env`). */
  env?: Record<string, string | undefined>;
}

/** Options with every default applied. */
export interface ResolvedOllamaOptions {
  baseUrl: string;
  model: string;
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  profile: ModelProfile | undefined;
  keepAlive: string | number | undefined;
  options: JsonObject | undefined;
}

/** Apply defaults and environment variables. Throws a `validation` error for a malformed base URL. */
export function resolveOllamaOptions(options: OllamaModelOptions): ResolvedOllamaOptions {
  const env = options.env ?? globalThis.process?.env ?? {};
  const explicit = options.baseUrl?.trim();
  const baseUrl = (
    explicit === undefined || explicit === "" ? ollamaBaseUrlFromHost(env.OLLAMA_HOST) : explicit
  ).replace(/\/+$/, "");
  try {
    new URL(baseUrl);
  } catch {
    throw validationError(
      `OllamaModel baseUrl "${baseUrl}" is not a URL; pass something like "http://127.0.0.1:11434" (or fix OLLAMA_HOST)`,
      { field: "baseUrl" },
    );
  }
  const model = options.model?.trim() || env.OLLAMA_MODEL?.trim() || DEFAULT_OLLAMA_MODEL;
  return {
    baseUrl,
    model,
    headers: { ...options.headers },
    fetch: options.fetch,
    profile: options.profile,
    keepAlive: options.keepAlive,
    options: options.options,
  };
}
