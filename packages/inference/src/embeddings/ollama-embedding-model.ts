import type { Clock } from "../clock/clock.js";
import { registerSecrets, secretsFromConfig } from "../http/config-secrets.js";
import type { FetchLike } from "../http/fetch-types.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { ollamaBaseUrlFromHost } from "../providers/ollama/host.js";
import { usage } from "../usage/usage.js";
import { malformed, positiveInteger, readVector } from "./embedding-http.js";
import type { EmbeddingResult } from "./embedding-model.js";
import { type EmbeddingRetryPolicy, resolveEmbeddingRetry } from "./embedding-retry.js";
import { HttpEmbeddingModel } from "./http-embedding-model.js";

/** Model used when neither `model` nor `OLLAMA_EMBEDDING_MODEL` says otherwise. */
export const DEFAULT_OLLAMA_EMBEDDING_MODEL = "nomic-embed-text";

/** Options of {@link OllamaEmbeddingModel}. Every field is optional. */
export interface OllamaEmbeddingModelOptions {
  /** Model name. Default: env `OLLAMA_EMBEDDING_MODEL`, else {@link DEFAULT_OLLAMA_EMBEDDING_MODEL}. */
  model?: string;
  /** Server origin (the adapter appends `/api/embed`). Default: env `OLLAMA_HOST` (Ollama's rules), else `http://127.0.0.1:11434`. */
  baseUrl?: string;
  /** Where environment variables are read (default `process.env`). */
  env?: Record<string, string | undefined>;
  fetch?: FetchLike;
  /** Extra headers (for example `authorization` for a proxied server). */
  headers?: Record<string, string>;
  /** Ask for shorter vectors (`dimensions`, for models that support it); also the expected length. */
  dimensions?: number;
  /** `truncate`: cut inputs longer than the context (Ollama's default `true`) or fail. */
  truncate?: boolean;
  /** `keep_alive` (`"10m"`, seconds, `0` to unload). */
  keepAlive?: string | number;
  /** Modelfile `options` (`num_ctx`, ...). */
  options?: JsonObject;
  /** Most inputs per request (default 256). */
  maxBatchSize?: number;
  /** Retry of overloaded requests (default: 2 retries, waits of at most 30 s). */
  retry?: Partial<EmbeddingRetryPolicy>;
  /** Clock for retry waits (default: the system clock; `embed` options may override). */
  clock?: Clock;
}

/**
 * Embeddings from Ollama's native `POST {baseUrl}/api/embed`: sends `{ model, input: [...texts] }`
 * plus `dimensions`, `truncate`, `keep_alive` and `options` when set; reads `embeddings` and
 * `prompt_eval_count` (as input tokens). `{ "error": "..." }` bodies become `ProviderError`s
 * (a missing model is a 404: pull it first). The vector length is learned from the first answer.
 */
export class OllamaEmbeddingModel extends HttpEmbeddingModel {
  declare readonly provider: "ollama";
  private readonly settings: OllamaEmbeddingModelOptions;

  constructor(options: OllamaEmbeddingModelOptions = {}) {
    const env = options.env ?? globalThis.process?.env ?? {};
    const explicit = options.baseUrl?.trim();
    const baseUrl = (
      explicit === undefined || explicit === "" ? ollamaBaseUrlFromHost(env.OLLAMA_HOST) : explicit
    ).replace(/\/+$/, "");
    const model =
      options.model?.trim() || env.OLLAMA_EMBEDDING_MODEL?.trim() || DEFAULT_OLLAMA_EMBEDDING_MODEL;
    if (options.dimensions !== undefined)
      positiveInteger(options.dimensions, "dimensions", "OllamaEmbeddingModel");
    super({
      className: "OllamaEmbeddingModel",
      allowEmptyText: true,
      baseUrl,
      dimensions: options.dimensions,
      shownHeaders: options.headers,
      endpoint: {
        provider: "ollama",
        model,
        url: `${baseUrl}/api/embed`,
        headers: { ...options.headers },
        fetch: options.fetch,
        maxBatchSize: positiveInteger(options.maxBatchSize ?? 256, "maxBatchSize", "OllamaEmbeddingModel"),
        retry: resolveEmbeddingRetry(options.retry),
        clock: options.clock,
      },
    });
    this.settings = options;
    // Header values and URL query values are credentials: masked wherever they surface.
    registerSecrets(secretsFromConfig({ headers: options.headers, baseUrl: this.baseUrl }));
  }

  /** The request body for one batch (for tests and debugging). */
  body(batch: readonly string[]): JsonObject {
    const body: JsonObject = { model: this.modelId, input: [...batch] };
    const { dimensions, truncate, keepAlive, options } = this.settings;
    if (dimensions !== undefined) body.dimensions = dimensions;
    if (truncate !== undefined) body.truncate = truncate;
    if (keepAlive !== undefined) body.keep_alive = keepAlive;
    if (options !== undefined) body.options = options;
    return body;
  }

  protected read(json: JsonValue): EmbeddingResult {
    if (!isJsonObject(json) || !Array.isArray(json.embeddings)) {
      throw malformed(this.endpoint, "returned no `embeddings` list");
    }
    const result: EmbeddingResult = {
      vectors: json.embeddings.map((value) => readVector(this.endpoint, value)),
    };
    if (typeof json.prompt_eval_count === "number") {
      const raw: JsonObject = { prompt_eval_count: json.prompt_eval_count };
      for (const key of ["total_duration", "load_duration"])
        if (typeof json[key] === "number") raw[key] = json[key];
      result.usage = usage({ inputTokens: json.prompt_eval_count, raw });
    }
    return result;
  }
}
