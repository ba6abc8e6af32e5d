import type { Attributes, Context } from "@opentelemetry/api";
import type { AgentNameOption } from "./gen-ai-conventions.js";

/** Options of `OtelTracer` and `createOtelListener`. */
export interface OtelListenerOptions {
  /** `gen_ai.agent.name` and the `invoke_agent {name}` span name; omitted -> `invoke_agent`. */
  agentName?: AgentNameOption;
  /**
   * Record content: tool call arguments (`gen_ai.tool.call.arguments`), streamed answer text
   * (`gen_ai.output.messages`), tool progress messages and structured event fields. Off by
   * default: prompts, outputs and arguments may hold personal data or secrets. (Prompts are not
   * in the event stream at all.)
   */
  captureContent?: boolean;
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
