import type { Clock } from "../clock/clock.js";
import type { Usage } from "../usage/usage.js";

/** Per-call options of {@link EmbeddingModel.embed}. */
export interface EmbedOptions {
  /** Aborts the call (every HTTP request and every retry wait). */
  signal?: AbortSignal;
  /** Time source for retry waits (default: the model's clock, else the system clock). */
  clock?: Clock;
  /** Timeout of each HTTP request, in milliseconds, on the clock (default `DEFAULT_CALL_TIMEOUT_MS`, 10 min; `0` removes it). */
  timeoutMs?: number;
}

/** The vectors for a list of texts, in the same order, and the usage when the provider reports it. */
export interface EmbeddingResult {
  vectors: number[][];
  /** `inputTokens` (= `totalTokens`) over every request the call made; output tokens are 0. */
  usage?: Usage;
}

/**
 * A text embedding model. Contract:
 * - `embed(texts)` returns one vector per text, in order (`[]` for `[]`, without a request);
 *   large lists are split into batches the provider accepts;
 * - every vector has `dimensions` numbers; `dimensions` is known from the options or learned
 *   from the first answer (`undefined` before that);
 * - provider failures throw `ProviderError`; a rate limit or an overloaded server is retried a
 *   bounded number of times, honouring `retry-after`; bad input throws a `validation` error.
 */
export interface EmbeddingModel {
  /** Provider name (`openai`, `ollama`, `mock`, ...). */
  readonly provider: string;
  /** The provider's model id (`text-embedding-3-small`, `nomic-embed-text`, ...). */
  readonly modelId: string;
  /** Length of every vector, when known. */
  readonly dimensions: number | undefined;
  embed(texts: readonly string[], options?: EmbedOptions): Promise<EmbeddingResult>;
}
