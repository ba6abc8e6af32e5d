/**
 * @tinyagents/harness/langfuse — export harness runs to Langfuse: OTLP/HTTP JSON (default) or the
 * legacy batch ingestion API. No OpenTelemetry SDK needed: the OTLP payload is built by hand.
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
export { LANGFUSE_ENV, type LangfuseEnvConfig, langfuseConfigFromEnv } from "./langfuse-env.js";
export { langfuseCostDetails, langfuseUsageDetails } from "./langfuse-usage.js";
export {
  type OtlpAnyValue,
  type OtlpKeyValue,
  type OtlpSpan,
  type OtlpTracesPayload,
  otlpPayload,
  otlpSpans,
} from "./otlp-payload.js";
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
