import type { ErrorSummary, JsonObject, JsonValue } from "@tinyagents/inference";
import type { AgentEventOf, EventRecord } from "../events/agent-event.js";
import {
  chatSpanName,
  errorType,
  GEN_AI,
  genAiProviderName,
  TINYAGENTS_ATTR,
  usageAttributes,
} from "../otel/gen-ai-conventions.js";
import type { ObservationLevel, TraceObservation } from "./trace-model.js";

/** A run's open observations while its records are folded in. */
export interface OpenRun {
  obs: TraceObservation;
  parentRunId: string | undefined;
  chats: Map<string, OpenChat>;
  /** Open tool observations by call id, newest started last. */
  tools: Map<string, TraceObservation>;
  children: Set<string>;
}

/** An open generation and the answer text streamed so far (content capture only). */
export interface OpenChat {
  obs: TraceObservation;
  text: string;
}

/** `model.started` -> a `generation` observation under the run. */
export function chatObservation(
  run: OpenRun,
  record: EventRecord,
  event: AgentEventOf<"model.started">,
): TraceObservation {
  const obs: TraceObservation = {
    key: `model:${record.runId}:${event.callId}:${event.attempt}`,
    kind: "generation",
    name: chatSpanName(event.providerModelId),
    runId: record.runId,
    parentKey: run.obs.key,
    startTs: record.ts,
    endTs: record.ts,
    level: "DEFAULT",
    model: event.providerModelId,
    attributes: {
      [GEN_AI.operationName]: "chat",
      [GEN_AI.providerName]: genAiProviderName(event.provider),
      [GEN_AI.requestModel]: event.providerModelId,
      [TINYAGENTS_ATTR.modelName]: event.model,
      [TINYAGENTS_ATTR.callId]: event.callId,
      [TINYAGENTS_ATTR.attempt]: event.attempt,
    },
    metadata: { runId: record.runId, callId: event.callId, attempt: event.attempt, modelName: event.model },
  };
  return obs;
}

/** `model.completed`: end time, response model, finish reason and billed usage. */
export function completeChatObservation(
  chat: OpenChat,
  record: EventRecord,
  event: AgentEventOf<"model.completed">,
  capture: boolean,
): void {
  const { obs } = chat;
  obs.endTs = record.ts;
  obs.attributes[GEN_AI.responseModel] = obs.model ?? "";
  if (event.finishReason !== undefined) {
    obs.attributes[GEN_AI.responseFinishReasons] = [event.finishReason];
    obs.metadata.finishReason = event.finishReason;
  }
  if (event.usage !== undefined) {
    if (event.servedFromCache) {
      // Not billed: keep Langfuse from pricing it (it infers cost from usage and model).
      obs.metadata.cachedResponseUsage = { ...event.usage } as unknown as JsonObject;
    } else {
      obs.usage = event.usage;
      Object.assign(obs.attributes, usageAttributes(event.usage));
    }
  }
  obs.metadata.servedFromCache = event.servedFromCache;
  if (capture && chat.text !== "") obs.output = chat.text;
}

/** `tool.started` -> a `tool` observation under the run (arguments only with content capture). */
export function toolObservation(
  run: OpenRun,
  record: EventRecord,
  event: AgentEventOf<"tool.started">,
  capture: boolean,
): TraceObservation {
  const obs: TraceObservation = {
    key: `tool:${record.runId}:${event.callId}`,
    kind: "tool",
    name: event.toolName,
    runId: record.runId,
    parentKey: run.obs.key,
    startTs: record.ts,
    endTs: record.ts,
    level: "DEFAULT",
    attributes: {
      [GEN_AI.operationName]: "execute_tool",
      [GEN_AI.toolName]: event.toolName,
      [GEN_AI.toolCallId]: event.callId,
      [GEN_AI.toolType]: "function",
    },
    metadata: { runId: record.runId, callId: event.callId },
  };
  if (capture) obs.input = event.arguments;
  return obs;
}

/** `tool.completed` / `tool.failed`: end time, duration, error state. */
export function finishToolObservation(
  tool: TraceObservation,
  record: EventRecord,
  event: AgentEventOf<"tool.completed"> | AgentEventOf<"tool.failed">,
): void {
  tool.endTs = record.ts;
  tool.metadata.durationMs = event.durationMs;
  if (event.type === "tool.failed") {
    fail(tool, event.error);
    return;
  }
  tool.metadata.isError = event.isError;
  tool.metadata.outputBytes = event.outputBytes;
  if (event.isError) {
    tool.level = "ERROR";
    tool.statusMessage = "the tool returned an error result";
  }
}

/**
 * An `event` observation for `record` under `parent` (its fields as metadata; tool progress
 * text only with content capture).
 */
export function eventObservation(
  parent: TraceObservation,
  record: EventRecord,
  level: ObservationLevel,
  capture: boolean,
): TraceObservation {
  const { type, ...fields } = record.event;
  const metadata: JsonObject = { runId: record.runId, eventId: record.id, offset: record.offset };
  for (const [key, value] of Object.entries(fields as Record<string, JsonValue | undefined>)) {
    if (value === undefined) continue;
    if (!capture && type === "tool.progress" && (key === "message" || key === "data")) continue;
    metadata[key] = value;
  }
  const error =
    "error" in fields && typeof fields.error === "object" ? (fields.error as ErrorSummary) : undefined;
  return {
    key: `event:${record.id}`,
    kind: "event",
    name: type,
    runId: record.runId,
    parentKey: parent.key,
    startTs: record.ts,
    endTs: record.ts,
    level,
    ...(error === undefined ? {} : { statusMessage: error.message }),
    attributes: error === undefined ? {} : { [GEN_AI.errorType]: errorType(error) },
    metadata,
  };
}

/** Level ERROR, the error's message as status, `error.type`, and the summary in metadata. */
export function fail(obs: TraceObservation, error: ErrorSummary): void {
  obs.level = "ERROR";
  obs.statusMessage = error.message;
  obs.attributes[GEN_AI.errorType] = errorType(error);
  obs.metadata.error = { ...error };
}

/** Close an observation its run (or the exported records) outlived. */
export function closeIncomplete(obs: TraceObservation, ts: number, failure: ErrorSummary | undefined): void {
  obs.endTs = ts;
  obs.metadata.incomplete = true;
  if (failure !== undefined) {
    fail(obs, failure);
    obs.statusMessage = `ended by the run's failure: ${failure.message}`;
  } else if (obs.level !== "ERROR") {
    obs.level = "WARNING";
    obs.statusMessage = "the exported records end before this observation finished";
  }
}
