import { validationError } from "../errors/tinyagents-error.js";
import { isJsonObject, type JsonValue } from "../json/json-value.js";
import { vectorNorm } from "./cosine-similarity.js";
import type {
  ScoredDocument,
  VectorDocument,
  VectorFilter,
  VectorSearchOptions,
  VectorStore,
} from "./vector-store.js";

interface Entry {
  document: VectorDocument;
  norm: number;
  order: number;
}

/**
 * A {@link VectorStore} in memory, searched by cosine similarity (exhaustive; fine up to tens of
 * thousands of vectors). Documents are copied on the way in and out, so callers cannot change
 * what is stored by mutating their objects. The first document (or `options.dimensions`) fixes
 * the vector length; a vector of another length, or with non-finite numbers, is a `validation`
 * error. Ties in score keep insertion order; replacing a document keeps its original position.
 */
export class InMemoryVectorStore implements VectorStore {
  private readonly entries = new Map<string, Entry>();
  private dimensions: number | undefined;
  private counter = 0;

  constructor(options: { dimensions?: number } = {}) {
    this.dimensions = options.dimensions;
  }

  get size(): number {
    return this.entries.size;
  }

  async add(documents: readonly VectorDocument[]): Promise<void> {
    for (const [i, document] of documents.entries()) this.check(document, i);
    for (const document of documents) {
      const previous = this.entries.get(document.id);
      this.entries.set(document.id, {
        document: copy(document),
        norm: vectorNorm(document.vector),
        order: previous?.order ?? this.counter++,
      });
    }
  }

  async search(vector: readonly number[], options: VectorSearchOptions = {}): Promise<ScoredDocument[]> {
    const topK = options.topK ?? 4;
    if (!Number.isInteger(topK) || topK < 1) {
      throw validationError(`InMemoryVectorStore.search: topK must be a positive integer (got ${topK})`, {
        field: "topK",
      });
    }
    if (this.dimensions !== undefined && vector.length !== this.dimensions) {
      throw validationError(
        `InMemoryVectorStore.search: the query vector has ${vector.length} numbers but the stored vectors have ${this.dimensions}; embed the query with the same model`,
        { field: "vector" },
      );
    }
    const queryNorm = vectorNorm(vector);
    const accept = matcher(options.filter);
    const hits: Array<{ entry: Entry; score: number }> = [];
    for (const entry of this.entries.values()) {
      if (accept !== undefined && !accept(entry.document)) continue;
      const score =
        queryNorm === 0 || entry.norm === 0
          ? 0
          : dot(vector, entry.document.vector) / (queryNorm * entry.norm);
      if (options.minScore !== undefined && score < options.minScore) continue;
      hits.push({ entry, score });
    }
    hits.sort((a, b) => b.score - a.score || a.entry.order - b.entry.order);
    return hits.slice(0, topK).map(({ entry, score }) => ({ ...copy(entry.document), score }));
  }

  async delete(ids: readonly string[]): Promise<number> {
    let removed = 0;
    for (const id of ids) if (this.entries.delete(id)) removed++;
    return removed;
  }

  /** A copy of the document stored under `id`, if any. */
  get(id: string): VectorDocument | undefined {
    const entry = this.entries.get(id);
    return entry === undefined ? undefined : copy(entry.document);
  }

  /** Remove every document (the vector length stays fixed). */
  clear(): void {
    this.entries.clear();
  }

  private check(document: VectorDocument, index: number): void {
    const where = `InMemoryVectorStore.add: documents[${index}]`;
    if (typeof document?.id !== "string" || document.id === "") {
      throw validationError(`${where} needs a non-empty string id`, { field: `documents[${index}].id` });
    }
    const { vector } = document;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw validationError(`${where} ("${document.id}") needs a vector of finite numbers`, {
        field: `documents[${index}].vector`,
      });
    }
    this.dimensions ??= vector.length;
    if (vector.length !== this.dimensions) {
      throw validationError(
        `${where} ("${document.id}") has a ${vector.length}-number vector but the store holds ${this.dimensions}-number vectors; use one embedding model (and dimensions) per store`,
        { field: `documents[${index}].vector` },
      );
    }
  }
}

function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function copy(document: VectorDocument): VectorDocument {
  const out: VectorDocument = { id: document.id, vector: [...document.vector] };
  if (document.text !== undefined) out.text = document.text;
  if (document.metadata !== undefined) out.metadata = structuredClone(document.metadata);
  return out;
}

function matcher(filter: VectorFilter | undefined): ((document: VectorDocument) => boolean) | undefined {
  if (filter === undefined) return undefined;
  if (typeof filter === "function") return filter;
  const wanted = Object.entries(filter);
  return (document) => wanted.every(([key, value]) => sameJson(document.metadata?.[key], value));
}

function sameJson(a: JsonValue | undefined, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === undefined || a === null || typeof a !== "object" || typeof b !== "object" || b === null)
    return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameJson(x, b[i]!));
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((key) => sameJson(a[key], b[key]!));
}
