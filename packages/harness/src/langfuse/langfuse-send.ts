import { ProviderError } from "@tinyagents/inference";
import { chunkBySize } from "./chunk-by-size.js";
import { httpFailure, type PostRequest, type PostResponse, postJson } from "./http-post.js";
import { ingestionEnvelopes } from "./ingestion-batch.js";
import { type LangfuseFailedItem, parseIngestionResponse } from "./ingestion-response.js";
import { otlpPayload, otlpSpans } from "./otlp-payload.js";
import { otlpTraceId } from "./stable-id.js";
import type { TraceModel } from "./trace-model.js";
import type { LangfuseTraceOptions } from "./trace-options.js";

/** What a send needs besides the trace models (built by `LangfuseClient`). */
export interface SendContext {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
  signal?: AbortSignal;
  secrets: readonly string[];
  maxRequestBytes: number;
  serviceName: string;
  trace: LangfuseTraceOptions;
}

/** What was sent and what the server did not take. */
export interface SendOutcome {
  traceIds: string[];
  requests: number;
  items: number;
  failed: LangfuseFailedItem[];
  rejectedSpans: number;
}

/**
 * OTLP/HTTP JSON: every observation becomes a span; spans are split into requests under
 * `maxRequestBytes`. OTLP answers all-or-nothing per request, except `partialSuccess.rejectedSpans`.
 */
export async function sendOtlp(models: readonly TraceModel[], context: SendContext): Promise<SendOutcome> {
  const spans = models.flatMap((model) => otlpSpans(model, context.trace));
  const chunks = chunkBySize(spans, context.maxRequestBytes);
  let rejectedSpans = 0;
  for (const [index, chunk] of chunks.entries()) {
    const body = JSON.stringify(otlpPayload(chunk, context.serviceName));
    const response = await post(context, "Langfuse OTLP export", body, index, chunks.length);
    rejectedSpans += rejectedCount(response.text);
  }
  return {
    traceIds: models.map((model) => otlpTraceId(model.rootRunId)),
    requests: chunks.length,
    items: spans.length,
    failed: [],
    rejectedSpans,
  };
}

/**
 * Legacy batch ingestion: `{ batch: [envelope...] }` split under `maxRequestBytes`. A 207 lists
 * per-envelope failures; they are reported, never retried.
 */
export async function sendIngestion(
  models: readonly TraceModel[],
  context: SendContext,
): Promise<SendOutcome> {
  const envelopes = models.flatMap((model) => ingestionEnvelopes(model, context.trace));
  const chunks = chunkBySize(envelopes, context.maxRequestBytes);
  const failed: LangfuseFailedItem[] = [];
  for (const [index, chunk] of chunks.entries()) {
    const body = JSON.stringify({ batch: chunk });
    const response = await post(context, "Langfuse ingestion", body, index, chunks.length);
    const ids = chunk.map((envelope) => envelope.id);
    failed.push(...parseIngestionResponse(response.status, response.text, ids, context.secrets));
  }
  return {
    traceIds: models.map((model) => model.rootRunId),
    requests: chunks.length,
    items: envelopes.length,
    failed,
    rejectedSpans: 0,
  };
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

/** `partialSuccess.rejectedSpans` of an OTLP answer (int64: a number or a decimal string). */
function rejectedCount(text: string): number {
  try {
    const parsed: unknown = JSON.parse(text);
    const partial = (parsed as { partialSuccess?: { rejectedSpans?: unknown } } | null)?.partialSuccess;
    const count = Number(partial?.rejectedSpans ?? 0);
    return Number.isFinite(count) ? count : 0;
  } catch {
    return 0;
  }
}
