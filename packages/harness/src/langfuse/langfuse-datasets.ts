import { type JsonObject, type JsonValue, validationError } from "@tinyagents/inference";
import { httpFailure, type PostRequest, postJson } from "./http-post.js";

/** What the dataset API needs from a `LangfuseClient` (built by {@link LangfuseClient.datasets}). */
export interface DatasetApiContext {
  baseUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
  secrets: readonly string[];
}

/** `POST /api/public/v2/datasets`: creates the dataset, or returns the one with that name. */
export interface LangfuseDatasetInput {
  name: string;
  description?: string;
  metadata?: JsonObject;
}

/** `POST /api/public/dataset-items`: upserts by `id`. */
export interface LangfuseDatasetItemInput {
  datasetName: string;
  /** Stable id: sending the item again updates it. */
  id: string;
  input?: JsonValue;
  expectedOutput?: JsonValue;
  metadata?: JsonObject;
}

/** `POST /api/public/dataset-run-items`: links a trace to a dataset item within a named run. */
export interface LangfuseDatasetRunItemInput {
  /** The dataset run (created on first use; the description is updated when given). */
  runName: string;
  runDescription?: string;
  metadata?: JsonObject;
  datasetItemId: string;
  /** The trace's id as Langfuse stored it (`LangfuseExportResult.traceIds`). */
  traceId: string;
  observationId?: string;
}

/** The paths of the dataset API (Langfuse's public API, v3 and self-hosted). */
export const LANGFUSE_DATASET_PATHS = {
  datasets: "/api/public/v2/datasets",
  items: "/api/public/dataset-items",
  runItems: "/api/public/dataset-run-items",
} as const;

/**
 * Langfuse datasets and dataset runs (experiments): `datasets.upsertDataset`, `upsertItem`,
 * `createRunItem`. Each call is one JSON POST, never retried; failures throw the same
 * `ProviderError` as exports (status, `retryable`, the body scrubbed of secrets).
 */
export class LangfuseDatasets {
  readonly #context: DatasetApiContext;

  constructor(context: DatasetApiContext) {
    this.#context = context;
  }

  /** Create the dataset (Langfuse returns the existing one when the name is taken). */
  async upsertDataset(dataset: LangfuseDatasetInput, signal?: AbortSignal): Promise<JsonObject> {
    nonEmpty(dataset.name, "name");
    return this.#post(LANGFUSE_DATASET_PATHS.datasets, "Langfuse dataset", { ...dataset }, signal);
  }

  /** Create or update one dataset item (by `id`). */
  async upsertItem(item: LangfuseDatasetItemInput, signal?: AbortSignal): Promise<JsonObject> {
    nonEmpty(item.datasetName, "datasetName");
    nonEmpty(item.id, "id");
    return this.#post(LANGFUSE_DATASET_PATHS.items, "Langfuse dataset item", { ...item }, signal);
  }

  /** Link a trace to a dataset item in the run `runName`. */
  async createRunItem(item: LangfuseDatasetRunItemInput, signal?: AbortSignal): Promise<JsonObject> {
    nonEmpty(item.runName, "runName");
    nonEmpty(item.datasetItemId, "datasetItemId");
    nonEmpty(item.traceId, "traceId");
    return this.#post(LANGFUSE_DATASET_PATHS.runItems, "Langfuse dataset run item", { ...item }, signal);
  }

  async #post(path: string, what: string, body: JsonObject, signal?: AbortSignal): Promise<JsonObject> {
    const request: PostRequest = {
      url: `${this.#context.baseUrl}${path}`,
      headers: this.#context.headers,
      body: JSON.stringify(body),
      timeoutMs: this.#context.timeoutMs,
      fetch: this.#context.fetch,
      what,
      secrets: this.#context.secrets,
      ...(signal === undefined ? {} : { signal }),
    };
    const response = await postJson(request);
    if (response.status < 200 || response.status >= 300) throw httpFailure(request, response);
    try {
      const parsed: unknown = JSON.parse(response.text);
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? (parsed as JsonObject)
        : {};
    } catch {
      return {};
    }
  }
}

function nonEmpty(value: unknown, field: string): void {
  if (typeof value !== "string" || value.trim() === "") {
    throw validationError(
      `Langfuse datasets: ${field} must be a non-empty string, got ${JSON.stringify(value)}`,
      {
        field,
      },
    );
  }
}
