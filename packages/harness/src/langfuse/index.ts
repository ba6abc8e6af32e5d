/**
 * @tinyagents/harness/langfuse — export harness runs to Langfuse: OTLP/HTTP protobuf (default,
 * encoded and sent by the official OpenTelemetry exporter, the optional peer
 * `@opentelemetry/exporter-trace-otlp-proto`, loaded on first use) or the legacy batch ingestion
 * API (no peer needed).
 */

export { buildTraceModels } from "./build-trace-models.js";
export { EXPORTED_EVENT_LEVELS } from "./exported-events.js";
export { type IngestionEnvelope, type IngestionEventType, ingestionEnvelopes } from "./ingestion-batch.js";
export type { LangfuseFailedItem } from "./ingestion-response.js";
export {
  LANGFUSE_PATHS,
  LangfuseClient,
  type LangfuseClientOptions,
  type LangfuseExportOptions,
  type LangfuseExportResult,
  type LangfuseScoreOptions,
  type LangfuseTransport,
} from "./langfuse-client.js";
export {
  LANGFUSE_DATASET_PATHS,
  type LangfuseDatasetInput,
  type LangfuseDatasetItemInput,
  type LangfuseDatasetRunItemInput,
  LangfuseDatasets,
} from "./langfuse-datasets.js";
export { LANGFUSE_ENV, type LangfuseEnvConfig, langfuseConfigFromEnv } from "./langfuse-env.js";
export { LangfuseSink, type LangfuseSinkOptions } from "./langfuse-sink.js";
export { langfuseCostDetails, langfuseUsageDetails } from "./langfuse-usage.js";
export { OTLP_EXPORTER_PACKAGE } from "./otlp-export.js";
export { type ExportResource, type ExportSpan, exportResource, exportSpans } from "./otlp-spans.js";
export type {
  LangfuseScore,
  LangfuseScoreDataType,
  LangfuseScoreFields,
  LangfuseScoreTarget,
  LangfuseSuccessScoreOption,
} from "./scores.js";
export { otlpSpanId, otlpTraceId } from "./stable-id.js";
export type {
  AttributeScalar,
  ObservationKind,
  ObservationLevel,
  TraceModel,
  TraceModelOptions,
  TraceObservation,
  TraceOutcome,
} from "./trace-model.js";
export type { LangfuseTraceOptions } from "./trace-options.js";
