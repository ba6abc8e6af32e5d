import { validationError } from "../errors/tinyagents-error.js";

/**
 * Cosine similarity of two vectors, in [-1, 1]: 1 for the same direction, 0 for orthogonal
 * vectors — and 0 when either vector is all zeros (no direction to compare). Throws a
 * `validation` error when the lengths differ (vectors from different models or settings).
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) {
    throw validationError(
      `cosineSimilarity: the vectors have different lengths (${a.length} and ${b.length}); were they made by the same embedding model and dimensions?`,
      { field: "vector", left: a.length, right: b.length },
    );
  }
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  if (normA === 0 || normB === 0) return 0;
  return Math.max(-1, Math.min(1, dot / Math.sqrt(normA * normB)));
}

/** The Euclidean length of a vector. */
export function vectorNorm(vector: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return Math.sqrt(sum);
}
