import type { Clock } from "../clock/clock.js";
import { validationError } from "../errors/tinyagents-error.js";
import { registerSecrets, secretsFromConfig } from "../http/config-secrets.js";
import type { FetchLike } from "../http/fetch-types.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { type EnvSource, PRESETS, type PresetName, type PresetSpec } from "../providers/openai/presets.js";
import { usage } from "../usage/usage.js";
import { malformed, positiveInteger, readVector } from "./embedding-http.js";
import type { EmbeddingResult } from "./embedding-model.js";
import { type EmbeddingRetryPolicy, resolveEmbeddingRetry } from "./embedding-retry.js";
import { HttpEmbeddingModel } from "./http-embedding-model.js";

/** Default embedding model per preset (others need `model`). */
export const DEFAULT_EMBEDDING_MODELS: Readonly<Partial<Record<PresetName, string>>> = Object.freeze({
  openai: "text-embedding-3-small",
  mistral: "mistral-embed",
  ollama: "nomic-embed-text",
});

/** OpenAI's limit on inputs per `/embeddings` request. */
export const OPENAI_MAX_EMBEDDING_INPUTS = 2048;

/** Options of {@link OpenAiEmbeddingModel}. Explicit values win over environment variables. */
export interface OpenAiEmbeddingModelOptions {
  /**
   * Which OpenAI-compatible service (default `openai`): its base URL, base-URL variable and
   * API-key variable are the chat presets' (`OPENAI_API_KEY`, `MISTRAL_API_KEY`, `OLLAMA_HOST`, ...).
   */
  preset?: PresetName;
  /**
   * Model id. Default: `OPENAI_EMBEDDING_MODEL` (openai preset), else the preset's entry in
   * {@link DEFAULT_EMBEDDING_MODELS}; other presets must name one.
   */
  model?: string;
  /** API base URL including the version path (`https://host/v1`). Default: the preset's. */
  baseUrl?: string;
  /** API key (sent as a bearer token). Default: the preset's environment variable. */
  apiKey?: string;
  /** Where environment variables are read (default `process.env`). */
  env?: EnvSource;
  fetch?: FetchLike;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Ask for shorter vectors (`dimensions`, supported by `text-embedding-3-*`); also the expected length. */
  dimensions?: number;
  /** Most inputs per request (default 2048, OpenAI's limit); longer lists are split. */
  maxBatchSize?: number;
  /** Retry of rate-limited / overloaded requests (default: 2 retries, waits of at most 30 s). */
  retry?: Partial<EmbeddingRetryPolicy>;
  /** Clock for retry waits (default: the system clock; `embed` options may override). */
  clock?: Clock;
  /** Provider name for errors (default: the preset's). */
  provider?: string;
}

/**
 * Embeddings from `POST {baseUrl}/embeddings` of OpenAI or any OpenAI-compatible server. Sends
 * `{ model, input: [...texts], dimensions? }`; reads `data[].embedding` (ordered by `index`;
 * float arrays or base64 float32) and `usage.prompt_tokens`. Long lists are batched; a 429 or
 * 5xx is retried with the `retry-after` the server sent (bounded; see `withEmbeddingRetry`).
 * Empty strings are refused up front (the API rejects them). A missing key for a hosted preset is
 * a `validation` error naming its variable.
 */
export class OpenAiEmbeddingModel extends HttpEmbeddingModel {
  private readonly requested: number | undefined;

  constructor(options: OpenAiEmbeddingModelOptions = {}) {
    const preset = options.preset ?? "openai";
    const spec: PresetSpec | undefined = PRESETS[preset];
    if (spec === undefined) {
      throw validationError(
        `OpenAiEmbeddingModel: unknown preset "${preset}"; use one of ${Object.keys(PRESETS).join(", ")}`,
        { field: "preset" },
      );
    }
    const env = options.env ?? globalThis.process?.env ?? {};
    const model =
      nonEmpty(options.model) ??
      (preset === "openai" ? nonEmpty(env.OPENAI_EMBEDDING_MODEL) : undefined) ??
      DEFAULT_EMBEDDING_MODELS[preset];
    if (model === undefined) {
      throw validationError(
        `OpenAiEmbeddingModel: the ${preset} preset has no default embedding model; pass { model }`,
        {
          field: "model",
        },
      );
    }
    const apiKey =
      nonEmpty(options.apiKey) ?? (spec.apiKeyEnv === undefined ? undefined : nonEmpty(env[spec.apiKeyEnv]));
    if (spec.keyRequired && apiKey === undefined) {
      throw validationError(
        `OpenAiEmbeddingModel: no API key: set the ${spec.apiKeyEnv} environment variable (or pass { apiKey }) to use ${spec.provider} embeddings`,
        { field: "apiKey", envVar: spec.apiKeyEnv ?? null },
      );
    }
    const envBase = nonEmpty(env[spec.baseUrlEnv]);
    const baseUrl = (
      nonEmpty(options.baseUrl) ?? (envBase === undefined ? spec.baseUrl : withVersionPath(envBase))
    )
      .replace(/\/+$/, "")
      .replace(/\/embeddings$/, "");
    const provider = options.provider ?? spec.provider;
    if (options.dimensions !== undefined)
      positiveInteger(options.dimensions, "dimensions", "OpenAiEmbeddingModel");
    const headers: Record<string, string> = { accept: "application/json" };
    if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
    // The key, custom header values and URL query values are masked wherever they surface.
    registerSecrets(secretsFromConfig({ apiKey, headers: options.headers, baseUrl }));
    super({
      className: "OpenAiEmbeddingModel",
      allowEmptyText: false,
      baseUrl,
      dimensions: options.dimensions,
      // Names of the headers sent (values never shown).
      shownHeaders: { ...(apiKey === undefined ? {} : { authorization: "" }), ...options.headers },
      endpoint: {
        provider,
        model,
        url: `${baseUrl}/embeddings`,
        headers: { ...headers, ...options.headers },
        fetch: options.fetch,
        maxBatchSize: positiveInteger(
          options.maxBatchSize ?? OPENAI_MAX_EMBEDDING_INPUTS,
          "maxBatchSize",
          "OpenAiEmbeddingModel",
        ),
        retry: resolveEmbeddingRetry(options.retry),
        clock: options.clock,
      },
    });
    this.requested = options.dimensions;
  }

  /** The request body for one batch (for tests and debugging). */
  body(batch: readonly string[]): JsonObject {
    const body: JsonObject = { model: this.modelId, input: [...batch] };
    if (this.requested !== undefined) body.dimensions = this.requested;
    return body;
  }

  protected read(json: JsonValue): EmbeddingResult {
    if (!isJsonObject(json) || !Array.isArray(json.data))
      throw malformed(this.endpoint, "returned no `data` list");
    const rows = json.data.map((row, position) => {
      if (!isJsonObject(row)) throw malformed(this.endpoint, "returned a `data` entry that is not an object");
      const index = typeof row.index === "number" ? row.index : position;
      return { index, vector: readVector(this.endpoint, row.embedding) };
    });
    rows.sort((a, b) => a.index - b.index);
    const result: EmbeddingResult = { vectors: rows.map((row) => row.vector) };
    const raw = json.usage;
    if (isJsonObject(raw) && typeof raw.prompt_tokens === "number") {
      const total = typeof raw.total_tokens === "number" ? raw.total_tokens : raw.prompt_tokens;
      result.usage = usage({ inputTokens: raw.prompt_tokens, totalTokens: total, raw });
    }
    return result;
  }
}

/** `host:port` or a root URL -> `http(s)://host:port/v1` (as the chat presets read base-URL variables). */
function withVersionPath(url: string): string {
  let out = url.trim().replace(/\/+$/, "");
  if (!/^[a-z]+:\/\//i.test(out)) out = `http://${out}`;
  return /\/v\d+(?:beta)?$/.test(out) || /\/openai\/v1$/.test(out) ? out : `${out}/v1`;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
