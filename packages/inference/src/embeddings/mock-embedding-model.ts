import { validationError } from "../errors/tinyagents-error.js";
import { usage } from "../usage/usage.js";
import type { EmbeddingModel, EmbeddingResult } from "./embedding-model.js";

/** Options of {@link MockEmbeddingModel}. */
export interface MockEmbeddingModelOptions {
  /** Vector length (default 64). */
  dimensions?: number;
  /** `modelId` (default `mock-embedding`). */
  modelId?: string;
}

/**
 * A deterministic, offline {@link EmbeddingModel} for tests and demos. Each text becomes a
 * "hashed bag of words": every lower-cased word (letters and digits) adds ±1 at a position
 * chosen by its FNV-1a hash, and the vector is scaled to length 1 (all zeros for a text without
 * words). The same text always gives the same vector, and texts sharing words are similar, so
 * retrieval tests behave sensibly. Usage counts words as input tokens. Every call's texts are
 * recorded in {@link calls}.
 */
export class MockEmbeddingModel implements EmbeddingModel {
  readonly provider = "mock";
  readonly modelId: string;
  readonly dimensions: number;
  /** The texts of every call, in order. */
  readonly calls: string[][] = [];

  constructor(options: MockEmbeddingModelOptions = {}) {
    const dimensions = options.dimensions ?? 64;
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw validationError(`MockEmbeddingModel: dimensions must be a positive integer (got ${dimensions})`, {
        field: "dimensions",
      });
    }
    this.dimensions = dimensions;
    this.modelId = options.modelId ?? "mock-embedding";
  }

  async embed(texts: readonly string[]): Promise<EmbeddingResult> {
    this.calls.push([...texts]);
    let words = 0;
    const vectors = texts.map((text) => {
      const vector = new Array<number>(this.dimensions).fill(0);
      for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
        const hash = fnv1a(word);
        vector[hash % this.dimensions]! += hash >>> 31 === 1 ? -1 : 1;
        words++;
      }
      const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
      return norm === 0 ? vector : vector.map((x) => x / norm);
    });
    return { vectors, usage: usage({ inputTokens: words }) };
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
