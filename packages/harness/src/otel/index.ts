/**
 * @tinyagents/harness/otel — OpenTelemetry spans and metrics for harness runs, following the
 * GenAI semantic conventions (`invoke_agent`, `chat {model}`, `execute_tool {name}` spans;
 * `gen_ai.client.*`, `gen_ai.invoke_agent.duration`, `gen_ai.execute_tool.duration` metrics).
 *
 * Needs the optional peer dependency `@opentelemetry/api` (^1.3). The core package never loads it.
 */
export {
  type AgentNameOption,
  agentSpanName,
  chatSpanName,
  errorType,
  GEN_AI,
  type GenAiOperation,
  genAiProviderName,
  genAiTokenCounts,
  runUsageAttributes,
  TINYAGENTS_ATTR,
  toolSpanName,
  usageAttributes,
} from "./gen-ai-conventions.js";
export {
  createOtelMetricsListener,
  GEN_AI_METRIC_BUCKETS,
  GEN_AI_METRICS,
  OtelMetrics,
} from "./otel-metrics.js";
export type { OtelListenerOptions, OtelMetricsOptions } from "./otel-options.js";
export { createOtelListener, OtelTracer } from "./otel-tracer.js";
export {
  type ExportableSpan,
  type ExportingSpanExporter,
  ReportingBatchSpanProcessor,
  type ReportingBatchSpanProcessorOptions,
} from "./reporting-batch-span-processor.js";
