import { abortedError, ProviderError, TinyAgentsError } from "@tinyagents/inference";
import { chunkBySize } from "./chunk-by-size.js";
import { httpFailure, type PostRequest } from "./http-post.js";
import type { ExportSpan } from "./otlp-spans.js";

/** The optional peer that encodes and sends the OTLP transport (HTTP + protobuf). */
export const OTLP_EXPORTER_PACKAGE = "@opentelemetry/exporter-trace-otlp-proto";

/** What {@link exportOtlp} needs: the endpoint, headers (no content type) and the budget. */
export interface OtlpExportRequest {
  url: string;
  headers: Record<string, string>;
  /** Per request, retries included (the exporter retries 429/502/503/504 within it). */
  timeoutMs: number;
  maxRequestBytes: number;
  signal?: AbortSignal;
  secrets: readonly string[];
}

interface ExportResult {
  code: number;
  error?: Error & { code?: number; data?: string };
}
interface SpanExporter {
  export(spans: ExportSpan[], done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}
type ExporterModule = {
  OTLPTraceExporter: new (config: {
    url: string;
    headers: Record<string, string>;
    timeoutMillis: number;
    concurrencyLimit: number;
  }) => SpanExporter;
};

let loading: Promise<ExporterModule> | undefined;

/**
 * The official OpenTelemetry OTLP/HTTP protobuf exporter, loaded on first use (an optional peer:
 * importing `@tinyagents/harness/langfuse`, or using the `ingestion` transport, never loads it).
 */
async function loadExporter(): Promise<ExporterModule> {
  // A literal specifier, so the build checks it against the declared peers.
  loading ??= import("@opentelemetry/exporter-trace-otlp-proto").catch((error: unknown) => {
    loading = undefined;
    throw new TinyAgentsError(
      "validation",
      `LangfuseClient: the "otlp" transport needs the optional peer dependency ${OTLP_EXPORTER_PACKAGE} (>=0.200 <1): run \`npm install ${OTLP_EXPORTER_PACKAGE}\`, or create the client with { transport: "ingestion" }.`,
      { details: { field: "transport", package: OTLP_EXPORTER_PACKAGE }, cause: error },
    );
    // Our structural view of the exporter: it reads only the span fields `ExportSpan` declares
    // (the SDK's `Resource` class has more members the encoder never calls).
  }) as unknown as Promise<ExporterModule>;
  return loading;
}

/**
 * Send spans with the official exporter, split into requests under `maxRequestBytes`, one
 * request at a time. The exporter encodes OTLP protobuf (int64s, ids and enums exactly as the
 * proto says) and retries 429, 502, 503 and 504 with exponential backoff, honouring
 * `Retry-After`, within `timeoutMs`. Returns the number of requests.
 *
 * @throws ProviderError (`provider`) when a request finally fails (HTTP status, body scrubbed of
 *   secrets); `cancelled` when `signal` aborts (an in-flight request finishes in the background).
 */
export async function exportOtlp(spans: readonly ExportSpan[], request: OtlpExportRequest): Promise<number> {
  const { OTLPTraceExporter } = await loadExporter();
  const exporter = new OTLPTraceExporter({
    url: request.url,
    headers: request.headers,
    timeoutMillis: request.timeoutMs,
    // Requests go one at a time (awaited below); the exporter frees a slot only after the callback.
    concurrencyLimit: 1_000,
  });
  const chunks = chunkBySize(spans, request.maxRequestBytes, spanSize);
  try {
    for (const [index, chunk] of chunks.entries()) {
      if (request.signal?.aborted) throw abortedError(request.signal, "Langfuse OTLP export");
      const result = await untilAborted(
        new Promise<ExportResult>((resolve) => exporter.export(chunk, resolve)),
        request.signal,
      );
      if (result.code !== 0) throw failure(result, request, index, chunks.length);
    }
  } finally {
    void exporter.shutdown().catch(() => undefined);
  }
  return chunks.length;
}

function spanSize(span: ExportSpan): number {
  return utf8.encode(JSON.stringify(span.attributes)).length + span.name.length + 96;
}
const utf8 = new TextEncoder();

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal, "Langfuse OTLP export"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The exporter's failure as the `ProviderError` the ingestion transport throws for the same cause. */
function failure(result: ExportResult, request: OtlpExportRequest, index: number, total: number): Error {
  const progress =
    total > 1
      ? ` (request ${index + 1} of ${total}; ${index} earlier request(s) were accepted — sending the run again is safe, ids are deterministic)`
      : "";
  const error = result.error;
  const post: PostRequest = {
    url: request.url,
    headers: request.headers,
    body: "",
    timeoutMs: request.timeoutMs,
    fetch: globalThis.fetch,
    what: "Langfuse OTLP export",
    secrets: request.secrets,
  };
  if (typeof error?.code === "number") {
    return httpFailure(
      post,
      { status: error.code, headers: new Headers(), text: error.data ?? "" },
      progress,
    );
  }
  const message = error?.message ?? "unknown failure";
  const retriesSpent = /retryable status|timed out/i.test(message);
  return new ProviderError({
    provider: "langfuse",
    kind: "retryable",
    message: retriesSpent
      ? `Langfuse OTLP export to ${new URL(request.url).origin} kept failing with retryable answers (429/502/503/504 or timeouts) until its ${request.timeoutMs} ms budget ran out${progress}. Send again later, or raise timeoutMs.`
      : `Langfuse OTLP export could not reach ${new URL(request.url).origin}: ${message}${progress}. Check the URL and that the server is up.`,
    ...(error === undefined ? {} : { cause: error }),
  });
}
