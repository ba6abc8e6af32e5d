import type { Clock } from "../clock/clock.js";
import {
  INSPECT,
  inspectView,
  jsonView,
  registerSecrets,
  secretsFromConfig,
} from "../http/config-secrets.js";
import type { FetchLike } from "../http/fetch-types.js";
import { displayUrl } from "../http/redact.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/json-value.js";
import { ollamaBaseUrlFromHost } from "../providers/ollama/host.js";
import { usage } from "../usage/usage.js";
import {
  type EmbeddingEndpoint,
  type EmbeddingWire,
  embedTexts,
  malformed,
  positiveInteger,
  readVector,
} from "./embedding-http.js";
import type { EmbeddingModel, EmbeddingResult, EmbedOptions } from "./embedding-model.js";
import { type EmbeddingRetryPolicy, resolveEmbeddingRetry } from "./embedding-retry.js";

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
export class OllamaEmbeddingModel implements EmbeddingModel {
  readonly provider = "ollama";
  readonly modelId: string;
  /** Server origin (no trailing slash). */
  readonly baseUrl: string;
  private knownDimensions: number | undefined;
  private readonly settings: OllamaEmbeddingModelOptions;
  private readonly endpoint: EmbeddingEndpoint;
  private readonly wire: EmbeddingWire = {
    who: "OllamaEmbeddingModel",
    allowEmptyText: true,
    body: (batch) => this.body(batch),
    read: (json) => this.read(json),
  };

  constructor(options: OllamaEmbeddingModelOptions = {}) {
    const env = options.env ?? globalThis.process?.env ?? {};
    const explicit = options.baseUrl?.trim();
    this.baseUrl = (
      explicit === undefined || explicit === "" ? ollamaBaseUrlFromHost(env.OLLAMA_HOST) : explicit
    ).replace(/\/+$/, "");
    this.modelId =
      options.model?.trim() || env.OLLAMA_EMBEDDING_MODEL?.trim() || DEFAULT_OLLAMA_EMBEDDING_MODEL;
    if (options.dimensions !== undefined)
      positiveInteger(options.dimensions, "dimensions", "OllamaEmbeddingModel");
    this.knownDimensions = options.dimensions;
    this.settings = options;
    this.endpoint = {
      provider: this.provider,
      model: this.modelId,
      url: `${this.baseUrl}/api/embed`,
      headers: { ...options.headers },
      fetch: options.fetch,
      maxBatchSize: positiveInteger(options.maxBatchSize ?? 256, "maxBatchSize", "OllamaEmbeddingModel"),
      retry: resolveEmbeddingRetry(options.retry),
      clock: options.clock,
    };
    // Header values and URL query values are credentials: masked wherever they surface.
    registerSecrets(secretsFromConfig({ headers: options.headers, baseUrl: this.baseUrl }));
  }

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no query values. */
  [INSPECT](): object {
    return inspectView("OllamaEmbeddingModel", this.publicFields(), this.settings.headers);
  }

  /** `JSON.stringify(model)`: the same credential-free view (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView("OllamaEmbeddingModel", this.publicFields(), this.settings.headers);
  }

  private publicFields(): Record<string, string> {
    return { provider: this.provider, modelId: this.modelId, endpoint: displayUrl(this.baseUrl) };
  }

  /** Vector length: the `dimensions` option, else learned from the first answer. */
  get dimensions(): number | undefined {
    return this.knownDimensions;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<EmbeddingResult> {
    const { result, dimensions } = await embedTexts(
      this.endpoint,
      texts,
      options,
      this.wire,
      this.knownDimensions,
    );
    this.knownDimensions = dimensions;
    return result;
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

  private read(json: JsonValue): EmbeddingResult {
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
