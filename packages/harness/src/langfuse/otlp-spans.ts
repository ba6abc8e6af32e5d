import { langfuseCostDetails, langfuseUsageDetails } from "./langfuse-usage.js";
import { LANGFUSE_SDK_INFO } from "./sdk-info.js";
import { otlpSpanId, otlpTraceId } from "./stable-id.js";
import type { AttributeScalar, TraceModel, TraceObservation } from "./trace-model.js";
import { type LangfuseTraceOptions, resolveTraceFields, traceRootKey } from "./trace-options.js";

/** The instrumentation scope name of every exported span. */
export const OTLP_SCOPE_NAME = "tinyagents";

/** Seconds and nanoseconds since the epoch (OpenTelemetry's `HrTime`). */
type HrTime = [number, number];

interface SpanContextLike {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** The OTLP resource of exported spans: `service.name`, `service.version`, `telemetry.sdk.*`. */
export interface ExportResource {
  attributes: Record<string, AttributeScalar>;
}

/**
 * A finished span in the shape of the OpenTelemetry SDK's `ReadableSpan` — what the official
 * OTLP exporters serialize. Declared structurally (not imported from `@opentelemetry/sdk-trace`)
 * so the harness's declarations never name the optional peer.
 */
export interface ExportSpan {
  name: string;
  /** `@opentelemetry/api` `SpanKind`: 0 INTERNAL, 2 CLIENT. */
  kind: 0 | 2;
  spanContext(): SpanContextLike;
  parentSpanContext?: SpanContextLike;
  startTime: HrTime;
  endTime: HrTime;
  duration: HrTime;
  ended: true;
  /** Code 0 UNSET, 2 ERROR. */
  status: { code: 0 | 2; message?: string };
  attributes: Record<string, AttributeScalar>;
  links: [];
  events: [];
  resource: ExportResource;
  instrumentationScope: { name: string; version?: string };
  droppedAttributesCount: 0;
  droppedEventsCount: 0;
  droppedLinksCount: 0;
}

/** The resource every span of one export shares (the OTLP encoder groups spans by identity). */
export function exportResource(serviceName: string): ExportResource {
  return {
    attributes: {
      "service.name": serviceName,
      "service.version": LANGFUSE_SDK_INFO.version,
      "telemetry.sdk.name": LANGFUSE_SDK_INFO.name,
      "telemetry.sdk.language": "nodejs",
      "telemetry.sdk.version": LANGFUSE_SDK_INFO.version,
    },
  };
}

/**
 * The spans of one trace model, with the attributes Langfuse's OTLP ingestion recognises
 * (`langfuse.observation.type`, `langfuse.observation.usage_details` / `cost_details` /
 * `model.name` / `completion_start_time`, `langfuse.trace.name`, `user.id`, `session.id`, ...)
 * next to the GenAI semantic-convention attributes. Ids are deterministic (see `stable-id.ts`),
 * so sending a run again updates its trace. The official OpenTelemetry exporter encodes them.
 */
export function exportSpans(
  model: TraceModel,
  options: LangfuseTraceOptions,
  resource: ExportResource,
): ExportSpan[] {
  const traceId = otlpTraceId(model.rootRunId);
  const rootKey = traceRootKey(model);
  const trace = resolveTraceFields(model, options);
  const scope = { name: OTLP_SCOPE_NAME, version: LANGFUSE_SDK_INFO.version };
  const contextOf = (key: string): SpanContextLike => ({
    traceId,
    spanId: otlpSpanId(model.rootRunId, key),
    traceFlags: 1,
  });
  return model.observations.map((obs) => {
    const attributes: Record<string, AttributeScalar> = { ...obs.attributes, ...langfuseAttributes(obs) };
    if (trace.environment !== undefined) attributes["langfuse.environment"] = trace.environment;
    if (obs.key === rootKey) {
      attributes["langfuse.trace.name"] = trace.name;
      attributes["langfuse.trace.metadata"] = JSON.stringify(trace.metadata);
      if (trace.tags.length > 0) attributes["langfuse.trace.tags"] = trace.tags;
      if (trace.userId !== undefined) attributes["user.id"] = trace.userId;
      if (trace.sessionId !== undefined) attributes["session.id"] = trace.sessionId;
      if (trace.release !== undefined) attributes["langfuse.release"] = trace.release;
      if (model.input !== undefined) attributes["langfuse.trace.input"] = JSON.stringify(model.input);
      if (model.output !== undefined) attributes["langfuse.trace.output"] = JSON.stringify(model.output);
    }
    const context = contextOf(obs.key);
    const startTime = hrTime(obs.startTs);
    const endTime = hrTime(Math.max(obs.endTs, obs.startTs));
    const span: ExportSpan = {
      name: obs.name,
      kind: obs.kind === "generation" ? 2 : 0,
      spanContext: () => context,
      startTime,
      endTime,
      duration: hrTime(Math.max(obs.endTs - obs.startTs, 0)),
      ended: true,
      status: obs.level === "ERROR" ? { code: 2, message: obs.statusMessage ?? "error" } : { code: 0 },
      attributes,
      links: [],
      events: [],
      resource,
      instrumentationScope: scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    if (obs.parentKey !== undefined) span.parentSpanContext = contextOf(obs.parentKey);
    return span;
  });
}

function langfuseAttributes(obs: TraceObservation): Record<string, AttributeScalar> {
  const attributes: Record<string, AttributeScalar> = {
    "langfuse.observation.type": obs.kind,
    "langfuse.observation.metadata": JSON.stringify(obs.metadata),
  };
  if (obs.level !== "DEFAULT") attributes["langfuse.observation.level"] = obs.level;
  if (obs.statusMessage !== undefined) attributes["langfuse.observation.status_message"] = obs.statusMessage;
  if (obs.input !== undefined) attributes["langfuse.observation.input"] = JSON.stringify(obs.input);
  if (obs.output !== undefined) attributes["langfuse.observation.output"] = JSON.stringify(obs.output);
  if (obs.kind === "generation") {
    if (obs.model !== undefined) attributes["langfuse.observation.model.name"] = obs.model;
    if (obs.modelParameters !== undefined) {
      attributes["langfuse.observation.model.parameters"] = JSON.stringify(obs.modelParameters);
    }
    if (obs.usage !== undefined) {
      attributes["langfuse.observation.usage_details"] = JSON.stringify(langfuseUsageDetails(obs.usage));
    }
    if (obs.cost !== undefined) {
      attributes["langfuse.observation.cost_details"] = JSON.stringify(langfuseCostDetails(obs.cost));
    }
    if (obs.completionStartTs !== undefined) {
      attributes["langfuse.observation.completion_start_time"] = new Date(
        obs.completionStartTs,
      ).toISOString();
    }
  }
  return attributes;
}

/** Epoch milliseconds (possibly fractional, microsecond precision kept) as `[seconds, nanos]`. */
function hrTime(ms: number): HrTime {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  return [seconds, (micros - seconds * 1_000_000) * 1000];
}
