import { validationError } from "../errors/tinyagents-error.js";
import type { JsonObject } from "../json/json-value.js";
import type { EmbeddingModel, EmbedOptions } from "./embedding-model.js";
import { InMemoryVectorStore } from "./in-memory-vector-store.js";
import type { ScoredDocument, VectorDocument, VectorSearchOptions, VectorStore } from "./vector-store.js";

/** A text to index: a bare string, or one with an id and metadata. */
export type RetrieverInput = string | { id?: string; text: string; metadata?: JsonObject };

/** Options of {@link Retriever}. */
export interface RetrieverOptions {
  /** The model that embeds documents and queries alike. */
  model: EmbeddingModel;
  /** Where vectors live (default a new {@link InMemoryVectorStore}). */
  store?: VectorStore;
  /** Default hits per query (default 4). */
  topK?: number;
  /** Default minimum score. */
  minScore?: number;
  /** Ids for inputs that have none (default `doc-1`, `doc-2`, ... per retriever). */
  generateId?: () => string;
}

/**
 * Semantic search over texts: {@link add} embeds texts (in one `embed` call, batched by the
 * model) and stores them with their text and metadata; {@link retrieve} embeds the query with
 * the same model and returns the closest stored documents, best first, with their scores.
 * An id that is already stored is replaced.
 */
export class Retriever {
  readonly model: EmbeddingModel;
  readonly store: VectorStore;
  private readonly defaults: VectorSearchOptions;
  private readonly generateId: () => string;

  constructor(options: RetrieverOptions) {
    this.model = options.model;
    this.store = options.store ?? new InMemoryVectorStore();
    this.defaults = {};
    if (options.topK !== undefined) this.defaults.topK = options.topK;
    if (options.minScore !== undefined) this.defaults.minScore = options.minScore;
    let n = 0;
    this.generateId = options.generateId ?? (() => `doc-${++n}`);
  }

  /** Embed and store `inputs`; returns their ids, in order. */
  async add(inputs: readonly RetrieverInput[], options: EmbedOptions = {}): Promise<string[]> {
    const items = inputs.map((input, index) => {
      const item = typeof input === "string" ? { text: input } : input;
      if (typeof item?.text !== "string") {
        throw validationError(`Retriever.add: inputs[${index}] has no text`, {
          field: `inputs[${index}].text`,
        });
      }
      return item;
    });
    if (items.length === 0) return [];
    const { vectors } = await this.model.embed(
      items.map((item) => item.text),
      options,
    );
    const documents = items.map((item, i): VectorDocument => {
      const document: VectorDocument = {
        id: item.id ?? this.generateId(),
        vector: vectors[i]!,
        text: item.text,
      };
      if (item.metadata !== undefined) document.metadata = item.metadata;
      return document;
    });
    await this.store.add(documents);
    return documents.map((document) => document.id);
  }

  /** The stored documents closest to `query` (options override the retriever's defaults). */
  async retrieve(query: string, options: VectorSearchOptions & EmbedOptions = {}): Promise<ScoredDocument[]> {
    if (typeof query !== "string") {
      throw validationError(`Retriever.retrieve: the query must be a string, got ${typeof query}`, {
        field: "query",
      });
    }
    const { signal, clock, timeoutMs, ...search } = options;
    const embed: EmbedOptions = {};
    if (signal !== undefined) embed.signal = signal;
    if (clock !== undefined) embed.clock = clock;
    if (timeoutMs !== undefined) embed.timeoutMs = timeoutMs;
    const { vectors } = await this.model.embed([query], embed);
    return this.store.search(vectors[0]!, { ...this.defaults, ...search });
  }
}
