import type { JsonObject } from "@tinyagents/inference";
import { langfuseCostDetails, langfuseUsageDetails } from "./langfuse-usage.js";
import type { TraceModel, TraceObservation } from "./trace-model.js";
import { type LangfuseTraceOptions, resolveTraceFields } from "./trace-options.js";

/** The envelope types this exporter writes to the legacy batch endpoint. */
export type IngestionEventType =
  | "trace-create"
  | "span-create"
  | "generation-create"
  | "event-create"
  | "score-create";

/**
 * One legacy ingestion envelope. `id` is unique per envelope (Langfuse de-duplicates on it);
 * `body.id` is the trace or observation id.
 */
export interface IngestionEnvelope {
  id: string;
  /** ISO 8601 with `Z`. */
  timestamp: string;
  type: IngestionEventType;
  body: JsonObject;
}

/**
 * Legacy `/api/public/ingestion` envelopes for one trace model: a `trace-create`, then a
 * `span-create` per run and tool, a `generation-create` per model-call attempt and an
 * `event-create` per exported event, each with `traceId` and `parentObservationId`.
 *
 * Ids are readable and deterministic: the trace id is the root run id, observation ids are
 * `{rootRunId}:{key}` (e.g. `run-1:run:run-1`, `run-1:tool:run-1:call-a`), and each envelope id
 * is `{bodyId}:create`, so sending the same run twice is de-duplicated by Langfuse.
 */
export function ingestionEnvelopes(
  model: TraceModel,
  options: LangfuseTraceOptions = {},
): IngestionEnvelope[] {
  const traceId = model.rootRunId;
  const trace = resolveTraceFields(model, options);
  const traceBody: JsonObject = {
    id: traceId,
    timestamp: iso(model.startTs),
    name: trace.name,
    metadata: trace.metadata,
  };
  if (trace.tags.length > 0) traceBody.tags = trace.tags;
  if (trace.userId !== undefined) traceBody.userId = trace.userId;
  if (trace.sessionId !== undefined) traceBody.sessionId = trace.sessionId;
  if (trace.environment !== undefined) traceBody.environment = trace.environment;
  if (trace.release !== undefined) traceBody.release = trace.release;
  if (model.input !== undefined) traceBody.input = model.input;
  if (model.output !== undefined) traceBody.output = model.output;
  const envelopes: IngestionEnvelope[] = [
    { id: `${traceId}:trace-create`, timestamp: iso(model.startTs), type: "trace-create", body: traceBody },
  ];
  for (const obs of model.observations) {
    const body = observationBody(obs, traceId);
    if (trace.environment !== undefined) body.environment = trace.environment;
    envelopes.push({
      id: `${String(body.id)}:create`,
      timestamp: iso(obs.startTs),
      type: envelopeType(obs),
      body,
    });
  }
  return envelopes;
}

/** The legacy ingestion id of an observation. */
export function ingestionObservationId(traceId: string, key: string): string {
  return `${traceId}:${key}`;
}

function envelopeType(obs: TraceObservation): IngestionEventType {
  if (obs.kind === "generation") return "generation-create";
  if (obs.kind === "event") return "event-create";
  return "span-create";
}

function observationBody(obs: TraceObservation, traceId: string): JsonObject {
  const body: JsonObject = {
    id: ingestionObservationId(traceId, obs.key),
    traceId,
    name: obs.name,
    startTime: iso(obs.startTs),
    level: obs.level,
    metadata: { ...obs.metadata, observationType: obs.kind },
  };
  if (obs.kind !== "event") body.endTime = iso(obs.endTs);
  if (obs.parentKey !== undefined) body.parentObservationId = ingestionObservationId(traceId, obs.parentKey);
  if (obs.statusMessage !== undefined) body.statusMessage = obs.statusMessage;
  if (obs.input !== undefined) body.input = obs.input;
  if (obs.output !== undefined) body.output = obs.output;
  if (obs.kind === "generation") {
    if (obs.model !== undefined) body.model = obs.model;
    if (obs.modelParameters !== undefined) body.modelParameters = obs.modelParameters;
    if (obs.usage !== undefined) body.usageDetails = langfuseUsageDetails(obs.usage);
    if (obs.cost !== undefined) body.costDetails = langfuseCostDetails(obs.cost);
    if (obs.completionStartTs !== undefined) body.completionStartTime = iso(obs.completionStartTs);
  }
  return body;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
