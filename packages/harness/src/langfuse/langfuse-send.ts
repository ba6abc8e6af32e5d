import { ProviderError } from "@tinyagents/inference";
import { chunkBySize } from "./chunk-by-size.js";
import { httpFailure, type PostRequest, type PostResponse, postJson } from "./http-post.js";
import { type IngestionEnvelope, ingestionEnvelopes } from "./ingestion-batch.js";
import { type LangfuseFailedItem, parseIngestionResponse } from "./ingestion-response.js";
import { exportOtlp } from "./otlp-export.js";
import { exportResource, exportSpans } from "./otlp-spans.js";
import { otlpTraceId } from "./stable-id.js";
import type { TraceModel } from "./trace-model.js";
import type { LangfuseTraceOptions } from "./trace-options.js";

/** What a send needs besides the trace models (built by `LangfuseClient`). */
export interface SendContext {
  url: string;
  /** Where `score-create` envelopes go when the traces travel over OTLP (the ingestion endpoint). */
  scoreUrl: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
  signal?: AbortSignal;
  secrets: readonly string[];
  maxRequestBytes: number;
  serviceName: string;
  /** The ingestion batch envelope's `metadata` (SDK name, version, integration, public key). */
  batchMetadata: Record<string, string>;
  trace: LangfuseTraceOptions;
  /** `score-create` envelopes sent with the export (ids already in the transport's scheme). */
  scores: readonly IngestionEnvelope[];
}

/** What was sent and what the server did not take. */
export interface SendOutcome {
  traceIds: string[];
  requests: number;
  items: number;
  /** `score-create` envelopes sent (counted in `items` for ingestion, not for OTLP). */
  scores: number;
  failed: LangfuseFailedItem[];
  rejectedSpans: number;
}

/**
 * OTLP/HTTP protobuf through the official OpenTelemetry exporter: every observation becomes a
 * span; spans are split into requests under `maxRequestBytes`. Scores have no OTLP form: they
 * follow as `score-create` batches to `scoreUrl`. (The exporter logs an OTLP partial success
 * through `diag` instead of returning it, so `rejectedSpans` stays 0 here.)
 */
export async function sendOtlp(models: readonly TraceModel[], context: SendContext): Promise<SendOutcome> {
  const resource = exportResource(context.serviceName);
  const spans = models.flatMap((model) => exportSpans(model, context.trace, resource));
  const { "content-type": _json, ...headers } = context.headers;
  const requests = await exportOtlp(spans, {
    url: context.url,
    headers,
    timeoutMs: context.timeoutMs,
    maxRequestBytes: context.maxRequestBytes,
    secrets: context.secrets,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  });
  const scores = await sendEnvelopes(context.scores, context, context.scoreUrl, "Langfuse score ingestion");
  return {
    traceIds: models.map((model) => otlpTraceId(model.rootRunId)),
    requests: requests + scores.requests,
    items: spans.length,
    scores: context.scores.length,
    failed: scores.failed,
    rejectedSpans: 0,
  };
}

/**
 * Legacy batch ingestion: `{ batch: [envelope...] }` split under `maxRequestBytes`, the scores
 * after the traces' envelopes in the same batches. A 207 lists per-envelope failures; they are
 * reported, never retried.
 */
export async function sendIngestion(
  models: readonly TraceModel[],
  context: SendContext,
): Promise<SendOutcome> {
  const envelopes = [
    ...models.flatMap((model) => ingestionEnvelopes(model, context.trace)),
    ...context.scores,
  ];
  const sent = await sendEnvelopes(envelopes, context, context.url, "Langfuse ingestion");
  return {
    traceIds: models.map((model) => model.rootRunId),
    requests: sent.requests,
    items: envelopes.length,
    scores: context.scores.length,
    failed: sent.failed,
    rejectedSpans: 0,
  };
}

/** POST `envelopes` to an ingestion endpoint in batches under `maxRequestBytes` (none: no request). */
export async function sendEnvelopes(
  envelopes: readonly IngestionEnvelope[],
  context: SendContext,
  url: string,
  what: string,
): Promise<{ requests: number; failed: LangfuseFailedItem[] }> {
  const chunks = chunkBySize(envelopes, context.maxRequestBytes);
  const failed: LangfuseFailedItem[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const body = JSON.stringify({
      batch: chunk,
      metadata: { ...context.batchMetadata, batch_size: chunk.length },
    });
    const response = await post({ ...context, url }, what, body, index, chunks.length);
    const ids = chunk.map((envelope) => envelope.id);
    failed.push(...parseIngestionResponse(response.status, response.text, ids, context.secrets));
  }
  return { requests: chunks.length, failed };
}

async function post(
  context: SendContext,
  what: string,
  body: string,
  index: number,
  total: number,
): Promise<PostResponse> {
  const request: PostRequest = {
    url: context.url,
    headers: context.headers,
    body,
    timeoutMs: context.timeoutMs,
    fetch: context.fetch,
    what,
    secrets: context.secrets,
    ...(context.signal === undefined ? {} : { signal: context.signal }),
  };
  const progress =
    total > 1
      ? ` (request ${index + 1} of ${total}; ${index} earlier request(s) were accepted — sending the run again is safe, ids are deterministic)`
      : "";
  let response: PostResponse;
  try {
    response = await postJson(request);
  } catch (error) {
    if (progress !== "" && ProviderError.isProviderError(error)) {
      throw new ProviderError({
        provider: "langfuse",
        kind: error.kind,
        message: `${error.message}${progress}`,
        cause: error,
      });
    }
    throw error;
  }
  if (response.status < 200 || response.status >= 300) throw httpFailure(request, response, progress);
  return response;
}
