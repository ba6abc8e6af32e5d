import type { Attributes, Context } from "@opentelemetry/api";
import type { RedactionOptions, Redactor } from "../observability/redaction.js";
import type { AgentNameOption } from "./gen-ai-conventions.js";
import type { ReportingBatchSpanProcessor } from "./reporting-batch-span-processor.js";

/** Options of `OtelTracer` and `createOtelListener`. */
export interface OtelListenerOptions {
  /** `gen_ai.agent.name` and the `invoke_agent {name}` span name; omitted -> `invoke_agent`. */
  agentName?: AgentNameOption;
  /** `gen_ai.agent.id` on every `invoke_agent` span. */
  agentId?: string;
  /** `gen_ai.agent.description` on every `invoke_agent` span. */
  agentDescription?: string;
  /** `gen_ai.agent.version` on every `invoke_agent` span. */
  agentVersion?: string;
  /**
   * Record content: system instructions, input and output messages and tool definitions
   * (`gen_ai.system_instructions`, `gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.tool.definitions`, from `traceDetailsMiddleware({ captureContent: true })`), tool call
   * arguments and results (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), streamed
   * answer text, tool progress messages and structured event fields. Off by default: prompts,
   * outputs and arguments may hold personal data or secrets. Content needs BOTH this and
   * `traceDetailsMiddleware({ captureContent: true })`: with only one set, a one-time warning
   * names the missing half (see `onContentWarning`).
   */
  captureContent?: boolean;
  /**
   * Receives the one-time warning that only one of the two content switches is on (default:
   * `process.emitWarning`, code `TINYAGENTS_CONTENT_CAPTURE`, once per process).
   */
  onContentWarning?: (message: string) => void;
  /**
   * Secret scrubbing of every record before it becomes span data: the journals' `Redactor`
   * (built-in rules, extended by these options, or a `Redactor` shared with the pipeline);
   * `false` when the records come redacted already (the tracer is a sink of `attachObservability`).
   */
  redact?: RedactionOptions | Redactor | false;
  /**
   * Parent of top-level run spans (and of child runs whose parent run this tracer never saw).
   * Default: `context.active()` at the moment `run.started` is delivered.
   */
  parentContext?: Context | (() => Context);
  /** Maps a model adapter's `provider` id to `gen_ai.provider.name` (default `genAiProviderName`). */
  providerName?: (provider: string) => string;
  /** Also emit the pre-v1.37 `gen_ai.system` attribute next to `gen_ai.provider.name`. */
  legacySystemAttribute?: boolean;
  /** Extra attributes for every `invoke_agent` span (service tags, tenant ids, ...). */
  runAttributes?: Attributes;
  /**
   * The span processor exporting this tracer's spans: its lost spans are reported as
   * `journal.dropped` events (sink `"otel"`) on the event sinks this tracer is attached to
   * (`attach(sink)`, or the pipeline of `attachObservability(events, { sinks: [otel] })`, whose
   * `onError` is told too), so the processor needs no `events` option of its own; the tracer's
   * `flush()` (called by the pipeline's `flush()` / `close()`) force-flushes it.
   */
  spanProcessor?: Pick<ReportingBatchSpanProcessor, "attachReporting" | "forceFlush">;
}

/** Options of `OtelMetrics` and `createOtelMetricsListener`. */
export interface OtelMetricsOptions {
  /**
   * `gen_ai.agent.name` on the agent, tool and cost measurements (low cardinality: a fixed name
   * or one per kind of agent, never a per-run value). Omitted -> no agent name.
   */
  agentName?: AgentNameOption;
  /** Maps a model adapter's `provider` id to `gen_ai.provider.name` (default `genAiProviderName`). */
  providerName?: (provider: string) => string;
  /**
   * Constant attributes added to every measurement (deployment, service tier, ...). Keep them
   * low-cardinality: each distinct combination is a separate time series.
   */
  attributes?: Attributes;
}
