/**
 * @tinyagents/harness/otel — OpenTelemetry spans for harness runs, following the GenAI
 * semantic conventions (`invoke_agent`, `chat {model}`, `execute_tool {name}`).
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
  runUsageAttributes,
  TINYAGENTS_ATTR,
  toolSpanName,
  usageAttributes,
} from "./gen-ai-conventions.js";
export type { OtelListenerOptions } from "./otel-options.js";
export { createOtelListener, OtelTracer } from "./otel-tracer.js";
