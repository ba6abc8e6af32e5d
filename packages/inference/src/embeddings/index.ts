export { cosineSimilarity, vectorNorm } from "./cosine-similarity.js";
export type { EmbeddingModel, EmbeddingResult, EmbedOptions } from "./embedding-model.js";
export {
  DEFAULT_EMBEDDING_RETRY,
  type EmbeddingRetryPolicy,
  resolveEmbeddingRetry,
  withEmbeddingRetry,
} from "./embedding-retry.js";
export { InMemoryVectorStore } from "./in-memory-vector-store.js";
export { MockEmbeddingModel, type MockEmbeddingModelOptions } from "./mock-embedding-model.js";
export {
  DEFAULT_OLLAMA_EMBEDDING_MODEL,
  OllamaEmbeddingModel,
  type OllamaEmbeddingModelOptions,
} from "./ollama-embedding-model.js";
export {
  DEFAULT_EMBEDDING_MODELS,
  OPENAI_MAX_EMBEDDING_INPUTS,
  OpenAiEmbeddingModel,
  type OpenAiEmbeddingModelOptions,
} from "./openai-embedding-model.js";
export { Retriever, type RetrieverInput, type RetrieverOptions } from "./retriever.js";
export type {
  ScoredDocument,
  VectorDocument,
  VectorFilter,
  VectorSearchOptions,
  VectorStore,
} from "./vector-store.js";
