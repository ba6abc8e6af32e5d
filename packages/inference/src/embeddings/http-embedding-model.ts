import { INSPECT, inspectView, jsonView } from "../http/config-secrets.js";
import { displayUrl } from "../http/redact.js";
import type { JsonObject, JsonValue } from "../json/json-value.js";
import { type EmbeddingEndpoint, type EmbeddingWire, embedTexts } from "./embedding-http.js";
import type { EmbeddingModel, EmbeddingResult, EmbedOptions } from "./embedding-model.js";

/** What an HTTP embedding adapter resolved from its options, for {@link HttpEmbeddingModel}. */
export interface HttpEmbeddingSetup {
  /** The adapter's class name, in error messages, `util.inspect` and `JSON.stringify`. */
  className: string;
  /** Whether an empty string is a valid input for this API. */
  allowEmptyText: boolean;
  /** Where and how requests go (its provider and model are the model's). */
  endpoint: EmbeddingEndpoint;
  /** The endpoint base URL (no trailing slash). */
  baseUrl: string;
  /** The configured vector length, if any. */
  dimensions: number | undefined;
  /** The headers whose names (never values) `util.inspect` and `JSON.stringify` show. */
  shownHeaders: Record<string, string> | undefined;
}

/**
 * What the HTTP embedding adapters (`OllamaEmbeddingModel`, `OpenAiEmbeddingModel`) have in
 * common, so each says only how a batch maps to a request body and how an answer reads: `embed`
 * (checked texts, batches, bounded retries, vectors checked against the known length, which the
 * first answer teaches when no `dimensions` was configured) and the credential-free
 * `util.inspect` / `JSON.stringify` view.
 */
export abstract class HttpEmbeddingModel implements EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  /** The endpoint base URL (no trailing slash). */
  readonly baseUrl: string;
  protected readonly endpoint: EmbeddingEndpoint;
  private knownDimensions: number | undefined;
  private readonly className: string;
  private readonly shownHeaders: Record<string, string> | undefined;
  private readonly wire: EmbeddingWire;

  constructor(setup: HttpEmbeddingSetup) {
    this.provider = setup.endpoint.provider;
    this.modelId = setup.endpoint.model;
    this.baseUrl = setup.baseUrl;
    this.endpoint = setup.endpoint;
    this.knownDimensions = setup.dimensions;
    this.className = setup.className;
    this.shownHeaders = setup.shownHeaders;
    this.wire = {
      who: setup.className,
      allowEmptyText: setup.allowEmptyText,
      body: (batch) => this.body(batch),
      read: (json) => this.read(json),
    };
  }

  /** The request body for one batch (for tests and debugging). */
  abstract body(batch: readonly string[]): JsonObject;

  /** The vectors (and usage) of one batch's answer; a malformed answer throws `malformed`. */
  protected abstract read(json: JsonValue): EmbeddingResult;

  /** `util.inspect(model)`: provider, model id and endpoint; header names only, no key, no query. */
  [INSPECT](): object {
    return inspectView(this.className, this.publicFields(), this.shownHeaders);
  }

  /** `JSON.stringify(model)`: the same credential-free view (see `jsonView`). */
  toJSON(): Record<string, unknown> {
    return jsonView(this.className, this.publicFields(), this.shownHeaders);
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

  private publicFields(): Record<string, string> {
    return { provider: this.provider, modelId: this.modelId, endpoint: displayUrl(this.baseUrl) };
  }
}
