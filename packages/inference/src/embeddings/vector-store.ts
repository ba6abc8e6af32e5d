import type { JsonObject } from "../json/json-value.js";

/** A stored vector with its id and, optionally, the text it embeds and metadata for filtering. */
export interface VectorDocument {
  id: string;
  vector: number[];
  text?: string;
  metadata?: JsonObject;
}

/** A search hit: the document and its cosine similarity to the query (higher is closer). */
export interface ScoredDocument extends VectorDocument {
  score: number;
}

/**
 * Which documents a search may return: a metadata object (every key must equal the document's
 * metadata value, compared as JSON) or a predicate.
 */
export type VectorFilter = JsonObject | ((document: VectorDocument) => boolean);

/** Options of {@link VectorStore.search}. */
export interface VectorSearchOptions {
  /** How many hits at most (default 4). */
  topK?: number;
  filter?: VectorFilter;
  /** Drop hits scoring below this. */
  minScore?: number;
}

/**
 * Where vectors are kept and searched. Methods may be async, so a database-backed store fits
 * the same interface. Contract: `add` replaces a document with the same id; `search` returns at
 * most `topK` hits, best first; `delete` returns how many of the ids existed.
 */
export interface VectorStore {
  add(documents: readonly VectorDocument[]): Promise<void>;
  search(vector: readonly number[], options?: VectorSearchOptions): Promise<ScoredDocument[]>;
  delete(ids: readonly string[]): Promise<number>;
  /** How many documents are stored. */
  readonly size: number;
}
