import { langfuseCostDetails, langfuseUsageDetails } from "./langfuse-usage.js";
import { otlpSpanId, otlpTraceId } from "./stable-id.js";
import type { AttributeScalar, TraceModel, TraceObservation } from "./trace-model.js";
import { type LangfuseTraceOptions, resolveTraceFields, traceRootKey } from "./trace-options.js";

/** An OTLP/JSON `AnyValue` (the subset this exporter writes). */
export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpAnyValue[] } };

/** An OTLP/JSON `KeyValue`. */
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

/** An OTLP/JSON span: hex ids, nanosecond times as decimal strings, kind 1 INTERNAL / 3 CLIENT. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  /** Code 0 UNSET, 2 ERROR. */
  status: { code: 0 | 2; message?: string };
}

/** An OTLP/JSON `ExportTraceServiceRequest` body. */
export interface OtlpTracesPayload {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

/** The instrumentation scope name of every exported span. */
export const OTLP_SCOPE_NAME = "tinyagents";

/**
 * The spans of one trace model, with the attributes Langfuse's OTLP ingestion recognises
 * (`langfuse.observation.type`, `langfuse.observation.usage_details` / `cost_details` /
 * `model.name` / `completion_start_time`, `langfuse.trace.name`, `user.id`, `session.id`, ...)
 * next to the GenAI semantic-convention attributes. Ids are deterministic (see `stable-id.ts`).
 */
export function otlpSpans(model: TraceModel, options: LangfuseTraceOptions = {}): OtlpSpan[] {
  const traceId = otlpTraceId(model.rootRunId);
  const rootKey = traceRootKey(model);
  const trace = resolveTraceFields(model, options);
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
    const span: OtlpSpan = {
      traceId,
      spanId: otlpSpanId(model.rootRunId, obs.key),
      name: obs.name,
      kind: obs.kind === "generation" ? 3 : 1,
      startTimeUnixNano: unixNano(obs.startTs),
      endTimeUnixNano: unixNano(obs.endTs),
      attributes: keyValues(attributes),
      status: obs.level === "ERROR" ? { code: 2, message: obs.statusMessage ?? "error" } : { code: 0 },
    };
    if (obs.parentKey !== undefined) span.parentSpanId = otlpSpanId(model.rootRunId, obs.parentKey);
    return span;
  });
}

/** Wrap spans in one `resourceSpans` entry (resource `service.name`, scope `tinyagents`). */
export function otlpPayload(spans: OtlpSpan[], serviceName = "tinyagents"): OtlpTracesPayload {
  return {
    resourceSpans: [
      {
        resource: {
          attributes: keyValues({
            "service.name": serviceName,
            "telemetry.sdk.name": "tinyagents",
            "telemetry.sdk.language": "nodejs",
          }),
        },
        scopeSpans: [{ scope: { name: OTLP_SCOPE_NAME }, spans }],
      },
    ],
  };
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

/**
 * OTLP/JSON key-values. Integers are `intValue` as decimal strings: OTLP/JSON follows the proto3
 * JSON mapping, where int64 is a string (strict collectors and proxies drop or reject numbers).
 */
export function keyValues(attributes: Record<string, AttributeScalar>): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: AttributeScalar): OtlpAnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return { arrayValue: { values: value.map((item) => ({ stringValue: item })) } };
}

/** Epoch milliseconds (possibly fractional) as a decimal nanosecond string. */
function unixNano(ms: number): string {
  const micros = BigInt(Math.round(ms * 1000));
  return (micros * 1000n).toString();
}
