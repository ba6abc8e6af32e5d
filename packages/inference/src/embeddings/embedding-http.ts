import type { Clock } from "../clock/clock.js";
import { systemClock } from "../clock/clock.js";
import { ProviderError } from "../errors/provider-error.js";
import { validationError } from "../errors/tinyagents-error.js";
import { CallBounds, DEFAULT_CALL_TIMEOUT_MS } from "../http/call-bounds.js";
import type { FetchLike } from "../http/fetch-types.js";
import { postJson } from "../http/post-json.js";
import { readJsonBody } from "../http/read-json-body.js";
import type { JsonObject, JsonValue } from "../json/json-value.js";
import { decodeBase64 } from "../multimodal/base64.js";
import { addUsage, type Usage } from "../usage/usage.js";
import type { EmbeddingResult, EmbedOptions } from "./embedding-model.js";
import { type EmbeddingRetryPolicy, withEmbeddingRetry } from "./embedding-retry.js";

/** What every HTTP embedding adapter shares. */
export interface EmbeddingEndpoint {
  provider: string;
  model: string;
  url: string;
  headers: Record<string, string>;
  fetch: FetchLike | undefined;
  maxBatchSize: number;
  retry: EmbeddingRetryPolicy;
  clock: Clock | undefined;
}

/** Throw a `validation` error unless `texts` is an array of strings (naming the first bad index). */
export function checkTexts(texts: readonly string[], who: string, allowEmpty: boolean): void {
  if (!Array.isArray(texts)) {
    throw validationError(`${who}.embed: expected an array of strings, got ${typeof texts}`, {
      field: "texts",
    });
  }
  texts.forEach((text, index) => {
    if (typeof text !== "string") {
      throw validationError(`${who}.embed: texts[${index}] is ${typeof text}, not a string`, {
        field: `texts[${index}]`,
      });
    }
    if (!allowEmpty && text === "") {
      throw validationError(
        `${who}.embed: texts[${index}] is empty, which OpenAI-compatible embedding endpoints reject; drop it or use a placeholder`,
        { field: `texts[${index}]` },
      );
    }
  });
}

/**
 * Embed `texts` in batches of at most `endpoint.maxBatchSize`, one request at a time (each with
 * the bounded retry), concatenating vectors in order and summing usage. `body(batch)` builds a
 * request body and `read(json, batch)` reads `{ vectors, usage? }` from the answer.
 */
export async function embedInBatches(
  endpoint: EmbeddingEndpoint,
  texts: readonly string[],
  options: EmbedOptions,
  body: (batch: readonly string[]) => JsonObject,
  read: (json: JsonValue, batch: readonly string[]) => EmbeddingResult,
): Promise<EmbeddingResult> {
  const vectors: number[][] = [];
  let total: Usage | undefined;
  const clock = options.clock ?? endpoint.clock ?? systemClock;
  const what = `${endpoint.provider} embeddings request`;
  for (let start = 0; start < texts.length; start += endpoint.maxBatchSize) {
    const batch = texts.slice(start, start + endpoint.maxBatchSize);
    const result = await withEmbeddingRetry(
      () => post(endpoint, body(batch), options, clock).then((json) => read(json, batch)),
      endpoint.retry,
      clock,
      options.signal,
      what,
    );
    if (result.vectors.length !== batch.length) {
      throw malformed(endpoint, `returned ${result.vectors.length} vectors for ${batch.length} inputs`);
    }
    vectors.push(...result.vectors);
    if (result.usage !== undefined)
      total = total === undefined ? result.usage : addUsage(total, result.usage);
  }
  return total === undefined ? { vectors } : { vectors, usage: total };
}

async function post(
  endpoint: EmbeddingEndpoint,
  body: JsonObject,
  options: EmbedOptions,
  clock: Clock,
): Promise<JsonValue> {
  // The same bounds as a chat call's, on the same clock (a unary call: no headers timeout).
  const call = new CallBounds({
    signal: options.signal,
    clock,
    bounds: {
      timeoutMs: options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      headersTimeoutMs: 0,
      streamIdleTimeoutMs: 0,
    },
    streaming: false,
    provider: endpoint.provider,
    model: endpoint.model,
  });
  try {
    const response = await postJson({
      url: endpoint.url,
      body,
      headers: endpoint.headers,
      fetch: endpoint.fetch,
      bounds: call,
      provider: endpoint.provider,
      model: endpoint.model,
    });
    return await readJsonBody(response, endpoint.provider, endpoint.model, call.signal);
  } finally {
    call.dispose();
  }
}

/** How an HTTP embedding model builds and reads its requests (see {@link embedTexts}). */
export interface EmbeddingWire {
  /** The model's class name, for error messages. */
  who: string;
  /** Whether an empty string is a valid input for this API. */
  allowEmptyText: boolean;
  body: (batch: readonly string[]) => JsonObject;
  read: (json: JsonValue, batch: readonly string[]) => EmbeddingResult;
}

/**
 * The whole `embed` of an HTTP embedding model: check the texts, embed them in batches, and check
 * the vectors against the known length. Returns the result and the vector length to remember.
 */
export async function embedTexts(
  endpoint: EmbeddingEndpoint,
  texts: readonly string[],
  options: EmbedOptions,
  wire: EmbeddingWire,
  knownDimensions: number | undefined,
): Promise<{ result: EmbeddingResult; dimensions: number | undefined }> {
  checkTexts(texts, wire.who, wire.allowEmptyText);
  if (texts.length === 0) return { result: { vectors: [] }, dimensions: knownDimensions };
  const result = await embedInBatches(endpoint, texts, options, wire.body, wire.read);
  return { result, dimensions: checkDimensions(endpoint, result.vectors, knownDimensions) };
}

/** Check that every vector is a list of finite numbers of one length, and that it matches `expected`. */
export function checkDimensions(
  endpoint: Pick<EmbeddingEndpoint, "provider" | "model">,
  vectors: readonly number[][],
  expected: number | undefined,
): number | undefined {
  let length = expected;
  for (const vector of vectors) {
    if (length === undefined) length = vector.length;
    if (vector.length !== length) {
      throw malformed(
        endpoint,
        expected === undefined
          ? `returned vectors of different lengths (${length} and ${vector.length})`
          : `returned ${vector.length}-dimensional vectors where ${expected} were expected; the server may ignore the dimensions setting`,
      );
    }
  }
  return length;
}

/** A vector from a JSON value: an array of numbers, or base64 of little-endian float32s. */
export function readVector(
  endpoint: Pick<EmbeddingEndpoint, "provider" | "model">,
  value: JsonValue | undefined,
): number[] {
  if (typeof value === "string") {
    const bytes = decodeBase64(value, `${endpoint.provider}'s base64 embedding`);
    if (bytes.length % 4 !== 0)
      throw malformed(endpoint, "returned a base64 embedding whose length is not a multiple of 4 bytes");
    const view = new DataView(bytes.buffer);
    return Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
  }
  if (!Array.isArray(value) || !value.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw malformed(endpoint, "returned an embedding that is not a list of numbers");
  }
  return value as number[];
}

/** A non-retryable `malformed_response` error for an answer that does not have the documented shape. */
export function malformed(
  endpoint: Pick<EmbeddingEndpoint, "provider" | "model">,
  problem: string,
): ProviderError {
  return new ProviderError({
    provider: endpoint.provider,
    model: endpoint.model,
    kind: "non_retryable",
    providerCode: "malformed_response",
    message: `${endpoint.provider} embeddings for model "${endpoint.model}" ${problem}; check the base URL and the model`,
  });
}

/** Throw a `validation` error unless `value` is a positive integer. */
export function positiveInteger(value: number, field: string, who: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw validationError(`${who}: ${field} must be a positive integer (got ${value})`, { field });
  }
  return value;
}
